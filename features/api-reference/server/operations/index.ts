import "server-only";
import type { Operation } from "../registry";
import { adminOperations } from "./admin";
import { alertOperations } from "./alerts";
import { drawerOperations } from "./drawer";
import { evalOperations } from "./evals";
import { governanceOperations } from "./governance";
import { guardrailOperations } from "./guardrails";
import { mcpServerOperations } from "./mcp-servers";
import { platformOperations } from "./platform";
import { promptOperations } from "./prompts";
import { reviewOperations } from "./reviews";
import { scoreOperations } from "./scores";
import { nextAuthOperations, sessionOperations } from "./session";
import { skillOperations } from "./skills";
import { v1Operations } from "./v1";
import { viewOperations } from "./views";

/** Every operation Tollgate serves over HTTP, one file per area, in the order the reference shows them. */
export const operations: readonly Operation[] = [
  ...sessionOperations,
  ...nextAuthOperations,
  ...drawerOperations,
  ...promptOperations,
  ...skillOperations,
  ...scoreOperations,
  ...reviewOperations,
  ...evalOperations,
  ...governanceOperations,
  ...guardrailOperations,
  ...alertOperations,
  ...adminOperations,
  ...viewOperations,
  ...mcpServerOperations,
  ...v1Operations,
  ...platformOperations,
];
