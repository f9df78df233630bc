/** A `.lua` file imported as its text (esbuild's text loader; worker-boot.mjs in source mode). */
declare module '*.lua' {
  const text: string;
  export default text;
}
