import { Effect } from "effect";
import { InvalidRequest } from "../../../../application/errors.ts";
import { viewJob } from "../../../../application/jobs/job-view.ts";
import { JobProjection } from "../../../../ports/projections.ts";
import type { AppServices } from "../../api/app-services.ts";
import type { GroupHandlers } from "../../api/mount.ts";
import type { jobs } from "./jobs-api.ts";

const LIMIT = { fallback: 20, most: 100 } as const;

const refused = (path: string, message: string) => new InvalidRequest({ message: `${path}: ${message}`, details: [{ path, message }] });

const limitOf = (text: string | undefined) => {
  if (text === undefined) return Effect.succeed(LIMIT.fallback);
  const limit = /^\d{1,3}$/.test(text) ? Number(text) : NaN;
  return limit >= 1 && limit <= LIMIT.most ? Effect.succeed(limit) : Effect.fail(refused("limit", `must be a whole number from 1 to ${LIMIT.most}`));
};

/** The jobs routes (jobs-api.ts): one job from its own stream, the list from the jobs projection. */
export const jobHandlers: GroupHandlers<typeof jobs, AppServices> = {
  getJob: ({ principal, params }) => viewJob(principal, params.jobId),
  listJobs: ({ principal, query }) =>
    Effect.gen(function* () {
      const limit = yield* limitOf(query.limit);
      const page = yield* (yield* JobProjection)
        .jobsOf(principal.account.accountId, { limit, before: query.cursor })
        .pipe(Effect.catchTag("InvalidJobCursor", () => Effect.fail(refused("cursor", "is not one a page of this list gave"))));
      const jobs = page.value.jobs.map(({ accountId: _, leaseUntil: __, attempt, ...job }) => ({ ...job, attempts: attempt }));
      return page.value.next === undefined ? { jobs } : { jobs, next: page.value.next };
    }),
};
