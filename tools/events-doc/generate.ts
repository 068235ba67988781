import fs from "node:fs";
import path from "node:path";
import { renderEventCatalogue, withCatalogue } from "./event-catalogue.ts";

/** Writes docs/events.md's event catalogue from the event Schemas; the prose around it is kept. */
const target = path.resolve(import.meta.dirname, "../../docs/events.md");
fs.writeFileSync(target, withCatalogue(fs.readFileSync(target, "utf8"), renderEventCatalogue()));
