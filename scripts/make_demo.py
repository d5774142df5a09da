#!/usr/bin/env python3
"""Generate assets/demo.jsonl, memlens's demo collection.

The memories belong to a fictional team at "Quaylight", building a double-entry
payments ledger in Rust (ledger-core, ledger-api, payouts-worker, recon,
webhooks-dispatcher) with a TypeScript/React dashboard ("Console"), a TS SDK,
GitHub Actions CI and Argo CD deploys to prod-eu / prod-us.

The texts are hand-written below; ids, timestamps, ratings, feel_* scores,
reads, extra relationships and other metadata are generated from a seeded
random.Random(7), so the output is byte-for-byte deterministic.

Usage: python3 scripts/make_demo.py [OUTPUT]   (default: assets/demo.jsonl)
Standard library only.
"""

import json
import math
import os
import random
import re
import sys
from collections import Counter
from datetime import datetime, timedelta, timezone

RNG = random.Random(7)

# ---------------------------------------------------------------------------
# Vocabulary
# ---------------------------------------------------------------------------

TAGS = set("""
ledger api web ci deploy postgres migrations sqlx axum tokio rust typescript
react pnpm testing flaky-test performance security auth idempotency money fx
reconciliation payouts webhooks kafka outbox observability alerts on-call
incident release dependencies tooling k8s feature-flags docs onboarding
compliance api-design sdk dx
""".split())

MODULES = {"ledger", "api", "web", "ci", "payouts", "recon", "webhooks", "infra", "sdk"}
SCOPES = ["personal", "team", "module", "shared"]
STATUSES = ["draft", "proposed", "validated", "deprecated", "stale", "rejected"]

LAYER1 = ["emotional_significance", "vulnerability", "trauma", "humor", "happiness",
          "sadness", "fear", "anger", "surprise", "disgust", "contempt", "embarrassment",
          "shame", "guilt", "excitement", "pride", "valence", "arousal", "dominance",
          "intensity", "coherence_tension"]
LAYER2_ONLY = ["salience", "urgency", "social_weight", "agency", "novelty",
               "retrieval_utility", "narrative_importance", "aesthetic_quality"]
FEEL = LAYER1 + LAYER2_ONLY
assert len(FEEL) == 29 and len(set(FEEL)) == 29

# ---------------------------------------------------------------------------
# Hand-written content
# ---------------------------------------------------------------------------

ENTRIES = []


def add(type_, where, title, tags, body, **kw):
    """Register one hand-written memory.

    where: personal | team | shared | <module name> (implies scope=module).
    kw: k (key for relationships), date ("MM-DD"), status, rel [(key, kind, strength)],
        q (rating tendency 1-5), extra (dict), deleted (reason), conf, hive (bool),
        src (dict), feel (dict of overrides), nofeel, partial.
    """
    e = dict(type=type_, where=where, title=title, tags=tags.split(), body=body.strip("\n"))
    e.update(kw)
    ENTRIES.append(e)
    return e


# ----------------------------------------------------------------- conventions

add("convention", "ledger", "Money is i64 minor units, never floats", "money ledger rust", """
Every amount in ledger-core is `Money { amount_minor: i64, currency: Currency }`. No `f64`, no `f32`, not even "just for display" inside Rust. If you need to show a major-unit value, format it at the edge (`Money::display()` or the dashboard's `formatMoney`).

Arithmetic goes through `checked_add` / `checked_sub`; overflow is an error (`LedgerError::AmountOverflow`), not a panic and not a wrap.
""", k="conv-money", q=4.6, hive=True, date="01-14",
    extra={"anchor": {"paths": ["crates/ledger-core/src/money.rs"], "symbols": ["Money"]}})

add("convention", "shared", "Currency exponents come from the table, never `/ 100`", "money fx web", """
Do not hardcode `/ 100` or `* 100` anywhere — not in Rust, not in the dashboard, not in SQL reports. Exponents differ: JPY and KRW are 0, KWD, BHD and JOD are 3, everything else we support is 2.

- Rust: `ledger_core::currency::exponent(cur)`
- TypeScript: `exponentOf(code)` from `@quaylight/money`
- SQL: join `currencies.exponent`

We already had two bugs from this (KWD in the dashboard, JPY in payouts).
""", k="conv-exponent", q=4.4, rel=[("gotcha-kwd", "related", 0.8), ("gotcha-jpy", "related", 0.8)])

add("convention", "ledger", "Migrations are forward-only and never edited after merge", "migrations postgres sqlx", """
sqlx migrations live in `crates/ledger-core/migrations/` and are named `YYYYMMDDHHMM_short_description.sql`. Once a migration is on `main` it is immutable — sqlx stores a checksum and every environment will refuse to start if the file changes.

To fix a bad migration, write a new one. Renames follow expand/contract: add the new column, dual-write, backfill, switch reads, drop the old column in a later release.
""", k="conv-migrations", q=4.5)

add("convention", "team", "Conventional Commits with the crate as scope", "release tooling dx", """
Commit subjects follow Conventional Commits and the scope is the crate or package name: `feat(ledger-api): add hold capture endpoint`, `fix(console): right-align amounts in payouts table`. release-please builds the changelog and the version bumps from these, so a wrong type means a wrong version. `chore` and `ci` never bump.
""", q=3.9)

add("convention", "api", "API errors are problem+json, never raw sqlx text", "api api-design security", """
Handlers return `Result<T, ApiError>`. `ApiError` renders RFC 7807 `application/problem+json` with a stable `type` URI under `https://docs.quaylight.dev/errors/` and a `code` field the SDK can switch on.

Never put `sqlx::Error` or `anyhow` text into `detail` — it leaked a table name to a merchant once. Log the internal error with the request id and return the generic `internal_error` problem.
""", q=4.2)

add("convention", "team", "Redact IBANs and account numbers in logs", "security observability compliance", """
Structured logs go to Loki and are readable by everyone with Grafana access, so no full IBAN, account number or routing number ever goes in a log field. Use `redact::iban(&iban)` which keeps the country code and the last 4 characters (`DE** **** 4821`). The `tracing` field name should end in `_redacted` so reviewers can spot it. Same rule for the dashboard's Sentry breadcrumbs.
""", k="conv-redact", q=4.7)

add("convention", "ledger", "Database tests use #[sqlx::test], one database per test", "testing postgres sqlx", """
Anything that touches Postgres uses `#[sqlx::test(migrations = "../ledger-core/migrations")]`. sqlx creates a fresh database per test and drops it afterwards, which is what lets nextest run them in parallel. Do not share a pool across tests through a `static` and do not rely on rows created by another test — order is not guaranteed.
""", q=4.0)

add("convention", "api", "Idempotency-Key is mandatory on money-moving POSTs", "idempotency api api-design", """
`POST /v2/transfers`, `/v2/payouts`, `/v2/holds` and `/v2/holds/{id}/capture` reject requests without an `Idempotency-Key` header (400 `idempotency_key_missing`). Keys are scoped per API key and kept for 24 hours. Same key with a different request body returns 422 `idempotency_key_reused`; same key and same body replays the stored response byte for byte, including the original status code.
""", k="conv-idem", q=4.8)

add("convention", "web", "Query keys live in queryKeys.ts", "web react typescript", """
TanStack Query keys are arrays that start with the resource name and are built only by the factories in `console/src/api/queryKeys.ts`, e.g. `qk.payouts.list({ status, cursor })`. No inline string keys in components: invalidation after a mutation relies on the prefix (`['payouts']`) and an inline `['payout-list']` silently never refreshes.
""", q=3.8)

add("convention", "web", None, "web react typescript", """
Console components: named exports only, one component per file, file name equals component name (`PayoutStatusBadge.tsx`), test next to it (`PayoutStatusBadge.test.tsx`). Default exports make the auto-import and the grep for usages worse, and the lint rule `import/no-default-export` enforces it anyway.
""", q=3.2)

add("convention", "team", "Keep PRs under ~400 changed lines", "dx release", """
Reviewers stop reading carefully somewhere around 400 changed lines. Generated files (`.sqlx/`, `openapi.json`, `sdk/src/generated/`) don't count. Migrations go in their own PR so they can be deployed and watched before the code that depends on them.
""", q=3.5)

add("convention", "team", "Feature flag naming and cleanup", "feature-flags release", """
Flags are declared in `config/flags.toml` and served by Unleash. Names are snake_case and start with the area: `payouts_sepa_instant`, `console_new_balances_page`, `recon_auto_match_v2`.

A flag that has been at 100% in both regions for two sprints gets removed — open the cleanup ticket when you flip it to 100%, not later. Stale flags are how we ended up with three code paths for holds.
""", q=4.1)

add("convention", "shared", "Timestamps: timestamptz in the DB, RFC 3339 with Z on the wire", "api api-design postgres", """
- Columns are `timestamptz`, never `timestamp`.
- The API emits RFC 3339 in UTC with millisecond precision and a literal `Z`: `2026-04-01T09:00:00.000Z`.
- Logs are UTC. Nobody converts to CET in code; Grafana does that for humans.
- Dates without time (value date, booking date) are `date` columns and `YYYY-MM-DD` strings, and they are in the bank's calendar, not UTC.
""", q=4.3)

add("convention", "team", "Run `just check` before saying done", "dx testing tooling", """
Agents and humans: before reporting a task as finished, run `just check` from the repo root. It runs `cargo fmt --check`, clippy with `-D warnings`, `cargo nextest run --workspace`, and in `console/` `pnpm lint && pnpm typecheck && pnpm test`. "It compiles" is not done. If `just check` is too slow for the loop, `just check-fast` skips the Postgres tests, but run the full one before pushing.
""", k="conv-check", q=4.5, hive=True, date="02-02",
    extra={"anchor": {"paths": ["justfile"], "symbols": []}, "expires_when": None})

add("convention", "team", "Chart of accounts naming", "ledger docs", """
Ledger account codes are colon-separated paths, lowercase, singular nouns:

- `assets:bank:<bank>:<currency>` — e.g. `assets:bank:fjordbank:eur`
- `liabilities:merchant_balance:<merchant_id>:<currency>`
- `liabilities:payouts_in_flight:<currency>`
- `revenue:fees:<fee_kind>`
- `expenses:bank_fees:<bank>`

The first segment decides the normal balance; don't invent new top-level segments without talking to finance ops (Ruth).
""", q=4.0)

add("convention", "team", "Monday on-call handoff", "on-call alerts", """
Handoff happens in #oncall every Monday at 10:00 CET. Outgoing on-call posts: pages received (with links), anything still muted in Alertmanager and why, open incidents, and any runbook that turned out to be wrong. Incoming on-call acknowledges in thread. If it isn't in the thread, the next person doesn't know it.
""", q=3.6)

add("convention", "shared", "Date-based API versions", "api api-design sdk", """
Breaking changes ship only behind a new `Quaylight-Version` date (current: `2026-04-01`). Each version change is a small module under `crates/ledger-api/src/versions/` that transforms requests and responses between adjacent versions, so the handlers only ever see the newest shape. Additive changes (new optional field, new endpoint, new enum value documented as open) don't need a version.
""", k="conv-versions", q=4.2)

add("convention", "ledger", "No SELECT * in sqlx queries", "sqlx postgres", """
Always list columns explicitly in `query!` / `query_as!`. With `SELECT *`, adding a column in a migration changes the row shape and breaks every `query_as!` that maps to a struct — at compile time if you're lucky, or silently when someone regenerates `.sqlx/` against a DB that's ahead of the code.
""", q=3.7)

add("convention", "infra", "Secrets: sops-encrypted in git, never plain env files", "security deploy k8s", """
Production and staging secrets live in `deploy/secrets/<env>/*.enc.yaml`, encrypted with sops against the KMS keys for that region. external-secrets syncs them into the cluster. Local development uses `.env.local`, which is gitignored; there is a `.env.example` with dummy values. If you ever paste a real key into a plain file, rotate it — don't just delete the commit.
""", q=4.4)

add("convention", "web", "Amounts are right-aligned and tabular", "web react money", """
In every Console table, money columns are right-aligned and use `font-variant-numeric: tabular-nums` (the `<Amount>` component does both). Negative amounts use a real minus sign (U+2212) and no red colour alone — colour-blind users in finance ops asked for the sign to always be visible.
""", q=3.4)

add("convention", "shared", "Public ids are prefixed ULIDs", "api api-design", """
Anything a merchant can see has a prefixed ULID id: `acct_`, `txn_`, `je_`, `po_`, `hold_`, `whk_`, `evt_`. Internal bigint primary keys never leave the database. The prefix makes support tickets readable ("po_01J…" is obviously a payout) and ULIDs sort by creation time, which cursor pagination relies on.
""", k="conv-ids", q=4.1)

add("convention", "team", "No blocking calls on the tokio runtime", "tokio rust performance", """
Anything CPU-heavy or synchronous — argon2 hashing of dashboard passwords, PDF statement rendering, zstd of large exports — goes through `tokio::task::spawn_blocking`. A single 300 ms argon2 call on a worker thread showed up as p99 latency on unrelated transfer requests. clippy can't catch this; reviewers have to.
""", q=3.9)

add("convention", "ledger", "Two approvals for posting logic", "ledger release", """
CODEOWNERS requires two approvals for anything under `crates/ledger-core/src/posting/` and `crates/ledger-core/migrations/`, one of them from @quaylight/ledger-owners. Agents: don't try to get around it by moving code out of the directory.
""", q=3.3)

add("convention", "team", "Dependency updates: Renovate on Mondays", "dependencies tooling", """
Renovate opens grouped PRs on Monday mornings: one for Rust minor/patch, one for console minor/patch, majors individually. Nothing automerges. The Rust toolchain is pinned in `rust-toolchain.toml` and bumped on the first Monday of the month, together with fixing whatever new clippy lints appear.
""", q=3.5)

add("convention", "webhooks", "Webhook event names are resource.past_tense and never renamed", "webhooks api-design", """
Event types look like `payout.paid`, `payout.failed`, `payout.returned`, `transfer.posted`, `hold.expired`. Once published, a name is forever: merchants switch on the string. Add a new event instead of renaming, and keep emitting the old one until the API version that drops it is the oldest supported.
""", q=4.0)

add("convention", "team", "Every alert links a runbook", "alerts on-call docs", """
Each Prometheus alert has an `annotations.runbook_url` pointing at `docs/runbooks/<AlertName>.md`. The runbook starts with "What this means", then "First five minutes", then "Escalate to". An alert without a runbook fails the `promtool`-based lint in CI.
""", q=4.2)

add("convention", "ledger", "Inject the clock; no Utc::now() in ledger-core", "testing ledger rust", """
ledger-core takes a `&dyn Clock` everywhere it needs the time. `Utc::now()` is banned in that crate by a clippy `disallowed-methods` entry. Tests use `FixedClock` or `SteppingClock`. This is what made the hold-expiry tests deterministic.
""", q=3.8)

add("convention", "web", "TypeScript: strict, no `any`", "typescript web sdk", """
`strict: true` everywhere, `noUncheckedIndexedAccess` in console and sdk. Use `unknown` and narrow with the zod schemas generated from OpenAPI instead of `any`. `// @ts-expect-error` is allowed only with a comment that names the upstream issue.
""", q=3.6)

add("convention", "personal", "Scratch notes stay in notes/", "dx", """
I keep scratch notes, half-finished SQL and copied log excerpts in `notes/` at the repo root — it's in my global gitignore, not the project's, so don't reference it in docs or commits.
""", q=2.8)

add("convention", "ci", "Pin GitHub Actions by commit SHA", "ci security dependencies", """
Third-party actions are pinned by full commit SHA with the tag in a trailing comment: `uses: actions/checkout@b4ffde65f46336ab88eb53be808477a3936bae11 # v4.1.1`. Renovate understands the comment and bumps both. First-party `./.github/actions/*` are referenced by path.
""", q=3.7)

add("convention", "recon", "Recon matching rules are data, not code", "reconciliation ledger", """
New matching rules go into `recon/rules/*.toml` (reference pattern, amount tolerance, date window) and are loaded at startup. Only genuinely new matching *strategies* need Rust. Finance ops can then review a rule change as a diff they understand.
""", q=3.5)

add("convention", "api", "Cursor pagination only", "api api-design performance", """
List endpoints take `limit` (max 100, default 25) and `starting_after` / `ending_before` with an object id. No `offset` — with 400M postings offset pagination was timing out at page 200 and returned duplicates when rows were inserted during paging.
""", k="conv-pagination", q=4.0)

# ------------------------------------------------------------------- decisions

add("decision", "team", "Postgres is the ledger store (for now)", "ledger postgres performance", """
We keep the ledger in Postgres 16 instead of adopting a dedicated ledger database (TigerBeetle was the serious candidate).

**Why:** our peak is ~600 transfers/s, well inside what Postgres does with row locks; the team knows it; backups, PITR, logical replication to the warehouse and auditor access all exist already.

**Revisit when:** sustained peak above 5k/s, or when balance row contention on hot accounts (the fee revenue account) becomes the p99 bottleneck.
""", k="dec-postgres", q=4.3, date="01-20")

add("decision", "team", "Outbox table instead of dual writes to Redpanda", "outbox kafka ledger", """
Events (`transfer.posted`, `payout.paid`, …) are written to `outbox` in the same transaction as the ledger change. A relay (`outbox-relay`, one leader per region via advisory lock) publishes to Redpanda and marks rows sent. Consumers must be idempotent on `event_id`.

Dual writes lost events every time the broker blipped; CDC was tried and dropped (see the Debezium attempt).
""", k="dec-outbox", q=4.6, rel=[("att-debezium", "related", 0.7)])

add("decision", "ledger", "Balance invariant enforced twice: Rust and a deferred trigger", "ledger postgres money", """
Each journal entry must have at least two postings and the postings must sum to zero per currency. ledger-core checks this before writing, and a `DEFERRABLE INITIALLY DEFERRED` constraint trigger on `postings` checks it again at COMMIT.

The Rust check gives good error messages; the trigger is the one that can't be bypassed by a backfill script or a psql session.
""", k="dec-invariant", q=4.7, rel=[("gotcha-deferred", "related", 0.9)])

add("decision", "api", "axum for ledger-api", "axum api rust", """
Chose axum over actix-web for ledger-api: it composes with tower middleware we already use (timeouts, tracing, rate limiting), and extractors make the idempotency layer easy to test in isolation. actix's performance edge didn't matter at our volume.
""", q=3.6, date="01-09")

add("decision", "ledger", "sqlx over diesel", "sqlx postgres rust", """
sqlx: plain SQL with compile-time checking against a real schema, async-native, and the ledger queries are hand-tuned SQL anyway (locking order, CTEs). diesel's query builder would have fought us on `FOR UPDATE` ordering and on the deferred trigger semantics. Cost: the `.sqlx/` offline cache has to be kept up to date.
""", q=3.8, date="01-09", rel=[("gotcha-sqlx-offline", "related", 0.6)])

add("decision", "shared", "Amounts are strings in API JSON", "api money sdk api-design", """
Public API amounts are JSON strings of minor units: `"amount": "125000"`, `"currency": "EUR"`. JavaScript numbers are IEEE doubles and lose integer precision above 2^53; some of our merchants' platforms also round JSON numbers. The TS SDK exposes them as `bigint` via a branded `MinorUnits` type.
""", k="dec-string-amounts", q=4.4, date="01-27")

add("decision", "ci", "cargo-nextest in CI", "ci testing rust", """
Switched CI from `cargo test` to `cargo nextest run --workspace --profile ci`. Per-test processes isolate the global state that was leaking between sqlx tests, the JUnit output feeds the flaky-test dashboard, and wall time dropped from 14 to 8 minutes on the same runners.
""", q=4.0, date="02-11")

add("decision", "infra", "Move from MSK to self-hosted Redpanda", "kafka deploy performance", """
Migrate event streaming from Amazon MSK to Redpanda on our own k8s nodes (3 brokers per region).

- MSK cost was 31% of the infra bill for ~2 MB/s of traffic.
- Redpanda speaks the Kafka protocol; rdkafka clients unchanged.
- Downside: we own upgrades and disk. Marek signed up for it.

Cutover planned for the week of 7 September, behind the outbox relay so producers don't notice.
""", k="dec-redpanda", q=3.9, date="07-30")

add("decision", "api", "Stripe-style date versions instead of /v3", "api api-design sdk", """
No more URL major versions after `/v2`. Breaking changes are released as dated versions pinned per API key (`Quaylight-Version`), with version-change modules that adapt old shapes. It lets us ship small breaking fixes without a migration project for merchants each time.
""", q=4.1, date="02-18", rel=[("conv-versions", "implements", 0.9)])

add("decision", "web", "Console on Vite + TanStack Router, not Next.js", "web react typescript", """
The Console is fully behind login, has no SEO needs and talks only to our API. Vite + React + TanStack Router/Query gives us a static bundle on the CDN and no Node server to operate. Next.js app router was prototyped and dropped (see the attempt memory).
""", k="dec-vite", q=3.7, date="01-22", rel=[("att-nextjs", "related", 0.8)])

add("decision", "ledger", "Corrections are reversal entries, never UPDATE", "ledger compliance", """
Posted journal entries are immutable. A mistake is corrected by posting a reversal entry (`reverses: je_…`) and then the correct entry. `UPDATE`/`DELETE` on `postings` and `journal_entries` are revoked from the application role; only the migration role can touch them. Auditors asked for this explicitly in the SOC 2 walkthrough.
""", k="dec-reversal", q=4.6)

add("decision", "webhooks", "Webhook signature scheme", "webhooks security api-design", """
Signature header: `Quaylight-Signature: t=<unix seconds>,v1=<hex hmac>`, HMAC-SHA256 over `"<t>.<raw body>"` with the endpoint secret. Receivers should reject timestamps more than 5 minutes off. During secret rotation both old and new signatures are sent as two `v1=` entries for 24 hours.
""", k="dec-webhook-sig", q=4.3)

add("decision", "shared", "ULIDs for public ids", "api api-design", """
Public ids are ULIDs with a type prefix. We considered UUIDv7 (same time-ordering); ULID won because the Crockford base32 form is shorter in URLs and support tickets and has no hyphens to break double-click selection.
""", q=3.2, rel=[("conv-ids", "related", 0.9)])

add("decision", "infra", "GitOps with Argo CD; no kubectl apply from laptops", "deploy k8s", """
All cluster state comes from `deploy/` via Argo CD. Human `kubectl` access is read-only in prod; break-glass write access is through the `sre-breakglass` role, logged, and must be followed by a PR that makes git match the cluster again.
""", k="dec-gitops", q=4.0, date="02-25")

add("decision", "ledger", "Running balances with ordered row locks", "ledger postgres performance", """
Balances are stored in `account_balances` and updated in the same transaction as the postings. Every transfer locks the involved balance rows with `SELECT … FOR UPDATE` in ascending `account_id` order — that ordering is what prevents deadlocks. Computing balances with `SUM()` over postings was too slow for large merchants (see attempt).
""", k="dec-balances", q=4.5, rel=[("att-sum-balances", "related", 0.8), ("gotcha-deadlock", "related", 0.9)])

add("decision", "ledger", "FX: snapshot the rate, round half-even once", "fx money ledger", """
A conversion stores the exact rate used (as a decimal string, 10 fractional digits) on the journal entry, converts once, and rounds the target amount half-even to the target currency's exponent. The rounding difference is never smeared; it is whatever the one rounding produces. Rates are `rust_decimal::Decimal`; amounts stay `i64`.
""", k="dec-fx", q=4.2, date="03-16")

add("decision", "ledger", "Use rust_decimal for all amounts", "money fx ledger", """
Proposal from the FX spike: replace `i64` minor units with `rust_decimal::Decimal` everywhere so conversions and fee calculations don't need explicit rounding steps.

Superseded — decimal amounts made currency exponent bugs easier to write, not harder, and doubled the size of `postings`. Kept Decimal for rates only.
""", k="dec-decimal-old", status="deprecated", q=2.3, date="02-26")

add("decision", "payouts", "Payout state machine: `paid` is not terminal", "payouts ledger", """
States: `created → submitted → paid`, `submitted → failed`, and `paid → returned`. ACH returns can arrive up to 60 days after settlement (R10 even later with dispute), SEPA returns up to 10 business days, recalls longer. So `paid` is *not* terminal; anything that treats it as final (exports, merchant balance release) must tolerate a later `returned` and its reversal entry.
""", k="dec-payout-states", q=4.4, rel=[("gotcha-ach-returns", "related", 0.9)])

add("decision", "infra", "Regions are fully separate ledgers", "deploy compliance ledger", """
prod-eu and prod-us each have their own Postgres cluster, Redpanda, and ledger. There are no cross-region journal entries: a merchant lives in exactly one region, chosen at onboarding. Data residency (EU merchants' data stays in eu-central-1) made this non-negotiable; it also means no distributed transactions, ever.
""", k="dec-regions", q=4.1, date="04-28")

add("decision", "team", "pnpm workspaces for all TypeScript", "pnpm typescript tooling", """
`console/`, `sdk/` and `tools/ts/*` are one pnpm workspace. No npm or yarn lockfiles; CI fails if `package-lock.json` appears. `pnpm install --frozen-lockfile` in CI.
""", q=3.1)

add("decision", "web", "Playwright for end-to-end tests", "testing web", """
Playwright over Cypress: real multi-tab support (needed for the session-refresh tests), WebKit coverage for the finance team on Safari, and traces we can download from CI artifacts.
""", q=3.4)

add("decision", "shared", "Retention periods", "compliance idempotency webhooks", """
- Idempotency keys and stored responses: 24 hours.
- Webhook delivery attempts (request/response bodies): 30 days, then only status codes for 13 months.
- Ledger entries, postings, audit log: forever (regulatory minimum is 10 years; we don't delete).
- Raw bank statement files: 10 years in the `statements` bucket with object lock.
""", q=4.0)

add("decision", "shared", "OpenAPI generated from Rust with utoipa", "api sdk docs", """
`openapi.json` is generated from the handler annotations with utoipa (`cargo run -p ledger-api --bin openapi`) and committed. The TS SDK types come from it via openapi-typescript, and the docs site renders it. CI fails if the committed file differs from a fresh generation.
""", k="dec-utoipa", q=3.9, rel=[("att-aide", "related", 0.6)])

add("decision", "team", "Unleash for feature flags", "feature-flags deploy", """
Self-hosted Unleash per region, Rust SDK in services and the frontend proxy for the Console. We looked at LaunchDarkly; cost per seat didn't fit and we needed data to stay in-region.
""", q=3.0, date="01-30")

add("decision", "team", "Error budget policy for transfers", "alerts on-call release", """
SLO: 99.95% of `POST /v2/transfers` succeed (non-5xx) within 800 ms, per 28-day window, per region. If the budget is exhausted, feature work on ledger-api pauses until the reliability backlog item that caused it ships. Sam agreed to this in writing; point to this memory when it's inconvenient.
""", k="dec-slo", q=4.2, date="03-04")

add("decision", "team", "Deploy windows and the Black Friday freeze", "deploy release on-call", """
No production deploys on Fridays after 14:00 CET or on public holidays in DE/US. Freeze from 20 November to 2 December for Black Friday / Cyber Monday: only fixes approved by Marek or Priya. Config-only flag flips are allowed during the freeze if they turn something *off*.
""", k="dec-freeze", q=3.8, date="10-27")

add("decision", "web", "GraphQL for the Console", "web api api-design", """
Proposal: put a GraphQL gateway in front of ledger-api for the Console so pages can fetch nested merchant → accounts → balances in one round trip.

Rejected: it would be a second API surface with its own auth checks, the REST API is what merchants use so dogfooding it finds real problems, and the waterfall problem is solved by two small aggregate endpoints.
""", status="rejected", q=2.6, date="02-05")

add("decision", "recon", "Split recon into its own deployable", "reconciliation deploy", """
Proposal: move the reconciliation jobs out of `payouts-worker` into a `recon` service with its own schedule and resource limits. Statement ingestion spikes at 06:00 UTC and has starved payout submission twice.

Open questions: who owns the exceptions queue UI, and whether recon needs write access to the ledger or only proposes adjustments.
""", status="proposed", k="dec-recon-split", q=3.5, date="09-22")

add("decision", "api", "jemalloc in ledger-api", "performance rust api", """
ledger-api links `tikv-jemallocator` as the global allocator. With glibc malloc the RSS grew to ~2.8 GB over a week from fragmentation (many short-lived JSON buffers) and pods got OOM-killed; with jemalloc it stays flat around 600 MB.
""", q=3.9, date="05-27")

add("decision", "shared", "Cursor pagination with opaque cursors", "api api-design", """
Cursors in responses are opaque (`next_cursor`), but they're currently just the last object id. We keep them opaque in docs so we can change the encoding later (e.g. include a sort key for the upcoming `?sort=amount`).
""", q=3.0, rel=[("conv-pagination", "related", 0.8)])

add("decision", "web", "Keycloak for Console login", "auth web security", """
Console users authenticate through Keycloak (one realm per region) with OIDC + PKCE. Merchant SSO (SAML/OIDC) is brokered through Keycloak identity providers. Tokens live in memory; the refresh token is in an httpOnly cookie on the `auth.` subdomain.
""", k="dec-keycloak", q=3.4)

add("decision", "api", "API keys: hashed, prefixed, scoped", "auth security api", """
Secret keys look like `ql_live_` + 32 random base62 chars. We store SHA-256 of the full key and the first 8 chars for display. Restricted keys carry scopes (`transfers:write`, `payouts:read`, …). A leaked key is revoked by hash; GitHub secret scanning partners with us on the `ql_live_` prefix.
""", q=4.1)

add("decision", "infra", "Tail sampling in the OTel collector", "observability performance", """
Services export 100% of spans to the regional OpenTelemetry collector; the collector keeps all traces with an error or latency above 1 s and 10% of the rest before sending to Tempo. Head sampling in the services lost exactly the traces we needed during INC-0419.
""", q=3.7, date="06-03")

add("decision", "api", "DB pool size 32 per pod", "postgres performance api", """
ledger-api runs 6 pods per region with a sqlx pool of max 32 connections each, behind PgBouncer in transaction mode. Raising the pool above 32 didn't improve throughput in the k6 runs; it increased lock wait time on hot balance rows.
""", q=3.2, status="stale")

add("decision", "sdk", "Drop Node 18 support in the SDK", "sdk typescript release", """
`@quaylight/sdk` 3.0 requires Node 20+. Node 18 is EOL since April 2025, native `fetch` is stable in 20, and we want `AbortSignal.timeout`. Announced in the changelog and to the five merchants still on 18 according to User-Agent stats.
""", q=3.3, date="05-05")

add("decision", "ledger", "Holds are separate from postings", "ledger api", """
An authorization hold reduces *available* balance but is not a journal entry. Holds live in `holds` with an expiry; capturing a hold posts a real journal entry and closes the hold in the same transaction. Keeping holds out of `postings` keeps the ledger a record of money that actually moved.
""", k="dec-holds", q=4.0)
