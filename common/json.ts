/** A JSON value as it crosses process and VM boundaries. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object, for tool arguments and structured outputs. */
export type JsonObject = { [key: string]: JsonValue };

/** A JSON Schema document (draft 2020-12 or draft-07), kept opaque outside the validators. */
export type JsonSchema = { [key: string]: JsonValue };
