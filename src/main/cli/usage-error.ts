/** A command line the user got wrong: the CLI prints it with the usage and exits with code 2. */
export class UsageError extends Error {}
