// A message whose content cannot become rows (a timestamp that is no date, a number that is not
// finite, no session_id): it goes to the dead-letter topic, the partition moves on.
export class TransformError extends Error {
  override name = 'TransformError'
  readonly path: string

  constructor(path: string, problem: string) {
    super(`${path}: ${problem}`)
    this.path = path
  }
}
