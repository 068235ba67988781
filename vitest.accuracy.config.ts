import { defineConfig } from "vitest/config";
import base from "./vitest.config.ts";

/** `npm run test:accuracy`: the accuracy sweeps left out of the default suite (test/accuracy). */
export default defineConfig({ test: { ...base.test, include: ["test/accuracy/**/*.test.ts"], exclude: ["**/node_modules/**"] } });
