import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { contractMethodNames, isContractEventName, type ContractMethodName } from '../common/contract.js';
import { type IpcResult, type PromptForgeApi } from '../common/contract-ipc.js';

// One function per contract method. The cast is the one spot where the table's names meet the
// mapped type; every entry has the same shape (request in, IpcResult out).
const methods = Object.fromEntries(
  contractMethodNames.map((method) => [
    method,
    (request: unknown): Promise<IpcResult<unknown>> => ipcRenderer.invoke(method, request),
  ]),
) as unknown as Pick<PromptForgeApi, ContractMethodName>;

const api = {
  ...methods,
  on(event, listener) {
    if (!isContractEventName(event)) throw new Error(`promptforge.on: unknown event ${JSON.stringify(event)}`);
    // The IpcRendererEvent (and its `sender`, an ipcRenderer) never reaches the page.
    const forward = (_event: IpcRendererEvent, payload: unknown): void => {
      (listener as (payload: unknown) => void)(payload);
    };
    ipcRenderer.on(event, forward);
    return () => {
      ipcRenderer.removeListener(event, forward);
    };
  },
} satisfies PromptForgeApi;

contextBridge.exposeInMainWorld('promptforge', api);
