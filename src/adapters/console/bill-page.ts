import type { Effect } from "effect";
import type { ConsoleView } from "../../application/account/console-view.ts";
import type { statementOf } from "../../application/receipts/receipts.ts";
import { errorLine, page, when } from "./console-layout.ts";
import { html } from "./html.ts";

interface BillPage {
  readonly view: ConsoleView;
  readonly csrfToken: string;
  readonly statement: StatementData;
  readonly verifierKey: string;
  /** The saved checkpoint sizes asked for, as typed: the download carries their consistency proofs. */
  readonly from: string;
  readonly error?: string;
}

type StatementData = Effect.Success<ReturnType<typeof statementOf>>;

/** A month of a busy account holds many thousands: the page shows the newest, the download has them all. */
export const RECEIPTS_SHOWN = 500;

const query = (period: string, from: string) => `period=${encodeURIComponent(period)}${from ? `&from=${encodeURIComponent(from)}` : ""}`;

/**
 * The bill: a month's signed receipts with their totals, the checkpoint they are proved against,
 * the key that signs them, and how the holder checks it all with verifier/verify-bill.mjs, so the
 * numbers need not be taken on trust. Both downloads are plain links; nothing needs the script.
 */
export const billPage = ({ view, csrfToken, statement, verifierKey, from, error }: BillPage) => {
  const { period, totals } = statement;
  const current = period === view.quota.period;
  const shown = statement.receipts.slice(-RECEIPTS_SHOWN);
  return page({
    title: `Bill ${period}`,
    signedIn: { section: "bill", csrfToken, email: view.email },
    body: html`<h1>Bill for ${period}</h1>
      ${errorLine(error)}
      <form class="toolbar" method="get" action="/console/bill">
        <label for="period">Month (YYYY-MM)</label>
        <input id="period" name="period" type="text" inputmode="numeric" pattern="\\d{4}-\\d{2}" maxlength="7" value="${period}" />
        <label for="from">Sizes of checkpoints you saved (optional, comma-separated)</label>
        <input id="from" name="from" type="text" inputmode="numeric" maxlength="255" value="${from}" />
        <div class="actions"><button type="submit">Show</button></div>
      </form>
      <section aria-labelledby="totals-heading">
        <h2 id="totals-heading">Totals</h2>
        <dl class="facts">
          <dt>Units charged</dt>
          <dd data-testid="bill-units">${totals.units}</dd>
          <dt>Charges</dt>
          <dd data-testid="bill-charges">${totals.charges}</dd>
          <dt>Releases (not charged)</dt>
          <dd>${totals.releases}</dd>
          <dt>Refunds</dt>
          <dd>${totals.refunds}</dd>
          ${
            current
              ? html`<dt>Quota used (overview)</dt>
                  <dd data-testid="bill-quota-used">${view.quota.used}</dd>`
              : ""
          }
        </dl>
        <div class="actions">
          <a class="button" href="/console/bill/statement?${query(period, from)}" download>Download statement (JSON)</a>
        </div>
      </section>
      <section aria-labelledby="receipts-heading">
        <h2 id="receipts-heading">Receipts</h2>
        ${
          statement.receipts.length === 0
            ? html`<p>No receipts in ${period}.</p>`
            : html`${
                  shown.length < statement.receipts.length
                    ? html`<p data-testid="receipts-cut">
                        The newest ${shown.length} of ${statement.receipts.length} receipts; the downloaded statement holds them all.
                      </p>`
                    : ""
                }
                <div class="table-wrap">
                  <table class="stack">
                    <thead>
                      <tr>
                        <th scope="col">Time</th>
                        <th scope="col">Request id</th>
                        <th scope="col">Operation</th>
                        <th scope="col">Kind</th>
                        <th scope="col">Units</th>
                      </tr>
                    </thead>
                    <tbody>
                      ${shown.map(
                        ({ receipt: { body } }) =>
                          html`<tr data-testid="receipt-row">
                            <td data-label="Time">${when(body.at)}</td>
                            <td data-label="Request id"><code>${body.requestId}</code></td>
                            <td data-label="Operation">${body.operation}</td>
                            <td data-label="Kind">${body.kind}</td>
                            <td data-label="Units">${body.units}</td>
                          </tr>`,
                      )}
                    </tbody>
                  </table>
                </div>`
        }
      </section>
      <section aria-labelledby="checkpoint-heading">
        <h2 id="checkpoint-heading">Checkpoint</h2>
        <p>The receipts log's head, signed: every receipt above is proved against it.</p>
        <pre class="note" data-testid="checkpoint">${statement.checkpoint}</pre>
        <div class="actions">
          <a class="button secondary" href="/console/bill/checkpoint" download>Save the current checkpoint</a>
        </div>
        <h3>Verifier key</h3>
        <pre class="note" data-testid="verifier-key">${verifierKey}</pre>
      </section>
      <section aria-labelledby="verify-heading">
        <h2 id="verify-heading">How to verify</h2>
        <p>
          Save the verifier key above as <code>ledger-key.txt</code> and the statement as downloaded, then run the verifier that ships with the service (Node.js
          only, no other code of ours):
        </p>
        <pre class="note">
node verifier/verify-bill.mjs --key ledger-key.txt --statement statement-${view.accountId}-${period}.json [--checkpoint checkpoint-N.txt ...]</pre>
        <p>
          It checks that every receipt is signed by the log key and included in the checkpoint, that the totals add up, and, for each checkpoint you saved
          earlier (name its size above before you download), that the log still extends it. Exit status 0 means all of it holds.
        </p>
      </section>`,
  });
};
