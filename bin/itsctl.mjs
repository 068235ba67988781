#!/usr/bin/env node
// Node >= 24 runs the TypeScript sources directly (type stripping): no build step.
import "../src/private-files.ts";
import { main } from "../src/adapters/cli/itsctl.ts";

process.exitCode = await main(process.argv);
