/** Automation rules: their rules of input, CRUD and test runs, the run the worker executes, the execution log. What other layers may import of this domain. */
export * from './validation';
export * from './rules';
export * from './run';
export * from './actions';
export * from './conditions';
export * from './executions';
