import { z } from "zod";

// Zod 4 compiles object parsers with `new Function` where a page allows it, and finds out by trying once; under
// our Content-Security-Policy (scripts by nonce, no 'unsafe-eval') that try is reported as a violation even
// though zod catches it. In the browser it parses without eval. The switch is read when an object schema is
// built, so the browser's schemas (features/*/contracts.ts) take `z` from here, after it is set.
if (typeof window !== "undefined") z.config({ jitless: true });

export { z };
