import "server-only";

// The API reference: the OpenAPI 3.1 document built from the operations (one file per area under operations/),
// whose request schemas are the very zod objects the routes validate with.
export { buildDocument, type OpenApiDocument, type OpenApiOperation, openApiDocument } from "./document";
export { operations } from "./operations";
export type { Guard, Operation } from "./registry";
