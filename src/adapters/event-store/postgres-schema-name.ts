/**
 * The PostgreSQL schema that holds the events unless the URL names one. Apart from the adapter so that
 * reading the configuration does not load the PostgreSQL driver.
 */
export const defaultPostgresSchema = "event_store";
