import { Schema } from "effect";
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api";
import { ApiKey, KEYED } from "../../api/api-security.ts";
import { Success } from "../../api/response-schemas.ts";
import { errorResponses } from "../../errors/documented-errors.ts";
import { JobData, JobId, JobListCursor, JobListData, JobListLimit } from "./job-schemas.ts";

export const JobResponse = Success("JobReply", JobData);
export const JobListResponse = Success("JobListReply", JobListData);

/** The account's asynchronous jobs (docs/jobs.md); part of the API's definition (api-definition.ts). */
export const jobs = HttpApiGroup.make("jobs", { topLevel: true })
  .add(
    HttpApiEndpoint.get("getJob", "/jobs/:jobId", {
      params: { jobId: JobId },
      success: JobResponse.annotate({ description: "The job: its status, progress, and on success the synchronous call's data" }),
      error: errorResponses("Job", [...KEYED, "NotFound"]),
    })
      .annotate(OpenApi.Summary, "One of the account's jobs")
      .annotate(
        OpenApi.Description,
        "Poll it (or take a webhook) after a 202 from POST /generate, /ocr or /virtual-tryon sent with Prefer: respond-async. Another account's job: 404.",
      ),
    HttpApiEndpoint.get("listJobs", "/jobs", {
      query: { limit: Schema.optionalKey(JobListLimit), cursor: Schema.optionalKey(JobListCursor) },
      success: JobListResponse.annotate({ description: "The account's jobs, newest first; next asks for the page after" }),
      error: errorResponses("JobList", [...KEYED, "InvalidRequest"]),
    })
      .annotate(OpenApi.Summary, "The account's jobs")
      .annotate(OpenApi.Description, "Newest first, a page at a time (cursor pagination); results are read one job at a time with GET /jobs/{jobId}."),
  )
  .middleware(ApiKey)
  .annotateMerge(OpenApi.annotations({ title: "Jobs", description: "Work that outlasts a request: asynchronous calls and their outcome." }));
