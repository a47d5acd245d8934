/** What core takes from its caller whichever transport that is: its dependencies and the workflow engine's port. */
export { type ServiceDeps } from './deps';
export {
  WorkflowNotRunning,
  WorkflowRefusal,
  WorkflowTimedOut,
  type LiveRefusal,
  type LiveUpdate,
  type StartOutcome,
  type WorkflowPort,
} from './workflows';
