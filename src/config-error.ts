/** A configuration that cannot work: the message names the variable. */
export class ConfigError extends Error {}
