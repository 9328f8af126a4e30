import { installDatabase } from "@/db";
import { type Container, createContainer } from "./container";

export { type Container, type ContainerOptions, createContainer } from "./container";

// Anchored once on globalThis: Next gives every route bundle (and instrumentation) its own copy of this module.
const ANCHOR = Symbol.for("tollgate.container");
const anchor = globalThis as { [ANCHOR]?: Container };

/**
 * Makes `app` the process's container, and its database the one `getDb()` answers (start-up installs the app's,
 * a test harness its own; `undefined` uninstalls both).
 */
export function installContainer<T extends Container | undefined>(app: T): T {
  anchor[ANCHOR] = app;
  installDatabase(app?.database);
  return app;
}

/** The process's container: the installed one, else one built from the environment (start-up builds it first). */
export function container(): Container {
  return anchor[ANCHOR] ?? installContainer(createContainer());
}
