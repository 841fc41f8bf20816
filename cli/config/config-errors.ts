// The errors of the CLI's own files: its configuration and the locks around its token files.

/** config.json, or an environment or secret it names, is not usable (environments.ts). */
export class ConfigFileError extends Error {
  override name = 'ConfigFileError'
}

/** Another process held a lock longer than the wait (file-lock.ts). */
export class LockTimeoutError extends Error {
  override name = 'LockTimeoutError'
}
