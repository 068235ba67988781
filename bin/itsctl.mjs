#!/usr/bin/env node
// Node >= 24 runs the TypeScript sources directly (type stripping): no build step.
import { main } from "../src/adapters/cli/itsctl.ts";

process.exitCode = await main(process.argv);
