/**
 * Tasks run one after another, each once the one before it settled, in the order they were
 * given. A task's failure reaches its own caller only: the next task still runs.
 */
export class OneByOne {
  private tail: Promise<void> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const run = this.tail.then(task);
    this.tail = run.then(() => undefined, () => undefined);
    return run;
  }
}
