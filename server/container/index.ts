import "server-only";
import { installDatabase } from "@/db";
import { peekProcessSlot, setProcessSlot } from "@/lib/core/process/process-state";
import { type Container, createContainer } from "./container";

export { type Container, type ContainerOptions, createContainer } from "./container";

/**
 * Makes `app` the process's container, and its database the one `getDb()` answers (start-up installs the app's,
 * a test harness its own; `undefined` uninstalls both).
 */
export function installContainer<T extends Container | undefined>(app: T): T {
  // Anchored once per process: Next gives every route bundle (and instrumentation) its own copy of this module.
  setProcessSlot("container", app);
  installDatabase(app?.database);
  return app;
}

/** The process's container: the installed one, else one built from the environment (start-up builds it first). */
export function container(): Container {
  return peekProcessSlot<Container>("container") ?? installContainer(createContainer());
}
