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
""", k="dec-tail", q=3.7, date="06-03")

add("decision", "api", "DB pool size 32 per pod", "postgres performance api", """
ledger-api runs 6 pods per region with a sqlx pool of max 32 connections each, behind PgBouncer in transaction mode. Raising the pool above 32 didn't improve throughput in the k6 runs; it increased lock wait time on hot balance rows.
""", q=3.2, status="stale")

add("decision", "sdk", "Drop Node 18 support in the SDK", "sdk typescript release", """
`@quaylight/sdk` 3.0 requires Node 20+. Node 18 is EOL since April 2025, native `fetch` is stable in 20, and we want `AbortSignal.timeout`. Announced in the changelog and to the five merchants still on 18 according to User-Agent stats.
""", q=3.3, date="05-05")

add("decision", "ledger", "Holds are separate from postings", "ledger api", """
An authorization hold reduces *available* balance but is not a journal entry. Holds live in `holds` with an expiry; capturing a hold posts a real journal entry and closes the hold in the same transaction. Keeping holds out of `postings` keeps the ledger a record of money that actually moved.
""", k="dec-holds", q=4.0)

# --------------------------------------------------------------------- gotchas

add("gotcha", "ledger", "sqlx offline cache must be regenerated after query changes", "sqlx ci tooling", """
CI builds with `SQLX_OFFLINE=true`, so it only knows the queries cached in `.sqlx/`. Change a `query!` and forget to run `cargo sqlx prepare --workspace -- --all-targets` and CI fails with:

`error: SQLX_OFFLINE=true but there is no cached data for this query, run cargo sqlx prepare to update the query cache`

Run it against a local DB that has *all* migrations applied, and commit the `.sqlx/*.json` changes in the same PR.
""", k="gotcha-sqlx-offline", q=4.5, hive=True, date="01-16",
    extra={"anchor": {"paths": [".sqlx/", ".github/workflows/rust.yml"], "symbols": []}, "expires_when": None})

add("gotcha", "ledger", "Deferred balance trigger never fires in rolled-back tests", "testing ledger postgres", """
The balance constraint trigger is `DEFERRABLE INITIALLY DEFERRED`, so it only runs at COMMIT. Tests that wrap everything in a transaction and roll back at the end never see an imbalance error — a test that posts an unbalanced entry will *pass*.

If you're testing the invariant, commit (`#[sqlx::test]` gives you a throwaway DB, so that's fine) or run `SET CONSTRAINTS ALL IMMEDIATE` first.
""", k="gotcha-deferred", q=4.6)

add("gotcha", "ledger", "timestamptz keeps microseconds, not nanoseconds", "postgres testing rust", """
`chrono::Utc::now()` has nanosecond precision; Postgres stores microseconds. Round-trip a timestamp through the DB and `assert_eq!` fails by a few hundred nanoseconds. Truncate before inserting (`ts.trunc_subsecs(6)`) or compare after truncation. The `FixedClock` in tests already returns whole milliseconds, which hides this until someone uses the real clock.
""", q=3.9)

add("gotcha", "web", "z.coerce.number() reintroduced float amounts in the Console", "web money typescript", """
Amounts are strings on the wire precisely so JS never turns them into doubles. A form schema in the new refund dialog used `z.coerce.number()` on the amount field, and `"9007199254740993"` became `9007199254740992`. Small amounts looked fine in testing.

Use `minorUnits()` from `@quaylight/money/zod`, which validates the string and produces a `bigint`.
""", k="gotcha-coerce", q=4.2, rel=[("dec-string-amounts", "related", 0.8)])

add("gotcha", "ledger", "Deadlock when transfers lock accounts in opposite order", "ledger postgres incident", """
`deadlock detected` in ledger-api logs, always two transfers between the same pair of accounts in opposite directions. The old code locked the debit account first, then the credit account. Fix (and the rule going forward): collect every balance row a transaction will touch, sort by `account_id`, lock them all in one `SELECT … WHERE account_id = ANY($1) ORDER BY account_id FOR UPDATE`.
""", k="gotcha-deadlock", q=4.7, feel={"fear": 0.62, "urgency": 0.71})

add("gotcha", "infra", "rdkafka idempotent producer needs max.in.flight ≤ 5", "kafka outbox", """
With `enable.idempotence=true`, librdkafka refuses to start if `max.in.flight.requests.per.connection` is above 5: `Invalid configuration: enable.idempotence requires max.in.flight.requests.per.connection <= 5`. Our old MSK config had 10 for throughput. The outbox relay now uses 5, which is plenty at our volume.
""", q=3.4)

add("gotcha", "api", "axum: the body extractor has to be the last argument", "axum rust api", """
If a handler takes `Json<T>` (or `Bytes`, `String`, anything that consumes the body) and it isn't the last parameter, you get the unhelpful `the trait bound fn(...) {handler}: Handler<_, _> is not satisfied`. Move the body extractor last. `#[axum::debug_handler]` on the function gives a readable error — add it temporarily when you see this.
""", q=4.3)

add("gotcha", "api", "Idempotency middleware buffers the body — 1 MiB limit", "idempotency api", """
To hash the request for idempotency the middleware reads the whole body with `axum::body::to_bytes(body, 1 << 20)`. Bulk payout requests above 1 MiB now get 413 instead of reaching the handler's own limit of 5 MiB. Bulk endpoints need the larger limit passed explicitly in the layer config; the default is deliberately small.
""", q=3.6)

add("gotcha", "infra", "helm --set splits values on commas", "k8s deploy observability", """
`helm upgrade --set env.OTEL_RESOURCE_ATTRIBUTES=service.name=ledger-api,deployment.environment=staging` does not do what it looks like: helm parses the comma as a separator and sets a nonsense key. Escape the comma (`\\,`), use `--set-string` with a values file, or better, put it in `values-staging.yaml`. Traces were missing their environment attribute for a week because of this.
""", q=3.8)

add("gotcha", "infra", "Argo CD stops auto-syncing after a manual edit", "deploy k8s incident", """
After someone ran `kubectl edit deployment ledger-api` on staging during the March outage, Argo CD marked the app OutOfSync but self-heal was off for that app, so it just sat there for nine days with a hand-patched memory limit. Nobody noticed because the dashboard tile was yellow, not red.

Now: self-heal on for all apps, and the `ArgoAppOutOfSync` alert fires after 30 minutes.
""", k="gotcha-argo", q=4.0, rel=[("dec-gitops", "related", 0.7)])

add("gotcha", "web", "KWD shown ten times too large in the Console", "web money fx", """
Reported 21 July by a merchant in Kuwait: 1.250 KWD showed as 12.50 KWD on the balances page. `BalanceCard` divided by 100 instead of using `exponentOf('KWD')` (3). API and ledger were correct. Fixed in console 2026.07.3, and a lint rule now flags the literal `/ 100` next to anything named `amount`.
""", k="gotcha-kwd", q=4.1, date="07-21")

add("gotcha", "payouts", "JPY payouts were multiplied by 100", "payouts money", """
The Wise-style rail adapter converted minor units to the bank's decimal format with `amount as f64 / 100.0` — for JPY (exponent 0) that sent ¥1,500 as ¥15. Caught in staging by the rail's sandbox rejecting a sub-minimum amount, luckily. `Money::to_decimal_string()` is the only correct conversion.
""", k="gotcha-jpy", q=4.0)

add("gotcha", "ci", "sccache GitHub Actions backend gets rate limited", "ci tooling performance", """
With `SCCACHE_GHA_ENABLED=true` and 20 parallel jobs, the Actions cache API started returning 429 and sccache fell back to compiling everything — builds went from 8 to 26 minutes with no error, only a line in the sccache stats at the end. We moved sccache to the `ql-ci-sccache` S3 bucket (`SCCACHE_BUCKET`); hit rate is back to ~85%.
""", k="gotcha-sccache", q=3.9, date="07-02")

add("gotcha", "web", "Playwright flakes from the toast animation", "flaky-test testing web", """
`payouts.spec.ts` failed about 1 run in 15 because the success toast slid over the "Export" button while it was still animating, and the click landed on the toast. Setting `reducedMotion: 'reduce'` in `playwright.config.ts` `use` made the component skip the animation. Don't add `force: true` to clicks to fix flakes like this; it hides real overlap bugs.
""", q=3.7)

add("gotcha", "recon", "DST day breaks the statement cutoff window", "reconciliation incident", """
The recon cutoff is "previous business day 00:00 to 24:00 Europe/London". On 25 October the day had 25 hours and the code computed the window as `start + 24h`, so one hour of statement lines landed in no window and were reported as unmatched the next morning (143 exceptions). Compute both ends as local midnights and convert each to UTC; never add 24 hours.
""", k="gotcha-dst", q=4.4, date="10-26", feel={"surprise": 0.7, "fear": 0.45})

add("gotcha", "infra", "pg_dump from the replica gets cancelled", "postgres tooling", """
Dumping large tables from the read replica fails with `canceling statement due to conflict with recovery` because replication replays vacuum on rows the dump still needs. Either run it on the dedicated `analytics` replica (which has `hot_standby_feedback=on` and `max_standby_streaming_delay=-1`) or dump from a snapshot clone. Don't turn feedback on for the primary's failover replica.
""", q=3.5)

add("gotcha", "payouts", "SEPA end-to-end id is limited to 35 characters", "payouts reconciliation", """
`EndToEndId` in pain.001 is max 35 chars. Our payout id `po_` + 26-char ULID is 29 — fine — but the recon prefix `QL-` plus a 4-char batch suffix made it 36, and Fjordbank silently truncated the last character. Matching then failed for every payout in that batch. Reference format is now `po_<ulid>` only; the batch goes into `PmtInfId`.
""", q=4.1)

add("gotcha", "webhooks", "Verify webhook signatures on the raw body", "webhooks security sdk", """
Recurring support ticket: merchants report "invalid signature" on every webhook. Almost always their framework parsed the JSON and they re-serialised it before verifying — key order or whitespace changes and the HMAC no longer matches. Verification must use the raw request bytes. The SDK's `verifyWebhook(rawBody, header, secret)` takes a `Uint8Array | string` on purpose; the docs now have an Express example with `express.raw()`.
""", k="gotcha-raw-body", q=4.5, rel=[("dec-webhook-sig", "related", 0.8)])

add("gotcha", "api", "tokio timeout doesn't cancel the Postgres query", "postgres tokio performance", """
Wrapping a sqlx call in `tokio::time::timeout(2s, …)` returns to the caller after 2 s, but the query keeps running on the server and the connection goes back to the pool only when it finishes. Under load this drained the pool. Set `statement_timeout` on the connection (we use `SET statement_timeout = '3s'` in `after_connect`) so the server cancels too.
""", q=4.2)

add("gotcha", "infra", "PgBouncer transaction mode vs sqlx prepared statements", "postgres sqlx performance", """
In transaction pooling mode a prepared statement created on one server connection isn't there on the next: `prepared statement "sqlx_s_3" does not exist` (or "already exists"). We run PgBouncer 1.22 with `max_prepared_statements = 200`, which makes it track protocol-level prepared statements. If you ever see this error again, check that someone didn't deploy an older PgBouncer image.
""", k="gotcha-pgbouncer", q=4.0)

add("gotcha", "infra", "native-tls sneaks in through feature unification", "rust dependencies deploy", """
The distroless image has no OpenSSL. After a dependency bump, ledger-api crashed at start with `error while loading shared libraries: libssl.so.3`. Cause: a new transitive crate enabled `reqwest/default-features`, which pulls `native-tls`. Fix: `default-features = false, features = ["rustls-tls"]` on every reqwest dependency, and `cargo deny` now bans `openssl-sys`.
""", q=4.1)

add("gotcha", "web", "Vite only exposes env vars prefixed with VITE_", "web tooling deploy", """
`import.meta.env.API_URL` is `undefined` in the production build — Vite only inlines variables starting with `VITE_`. It worked locally because the dev server had a fallback. Use `VITE_API_URL`, and remember these values are public: never put a secret in a `VITE_` variable.
""", q=3.6)

add("gotcha", "recon", "BAI2 dates are YYMMDD", "reconciliation", """
BAI2 files from the US bank use `YYMMDD` for as-of dates and `HHMM` (sometimes `2400`!) for times. `2400` means end of day and chrono rejects it. The parser maps `2400` to `23:59:59` of the same day. Also: group header dates can differ from the file creation date by a day around midnight Eastern.
""", q=3.3)

add("gotcha", "ci", "Clock skew in CI containers breaks webhook tolerance tests", "ci flaky-test testing", """
The test that asserts a webhook 4m59s old is accepted failed intermittently on self-hosted runners: the container clock was ~2 s behind the host. Tests must never compare against the wall clock — use the injected `Clock` and build the signature with the same fixed timestamp.
""", q=3.2)

add("gotcha", "api", "deny_unknown_fields broke forward compatibility", "api api-design sdk", """
Request structs had `#[serde(deny_unknown_fields)]`. When SDK 3.1 started sending `metadata` on holds before ledger-api supported it, every hold creation from that SDK failed with 400. Unknown fields in requests are now ignored (and logged at debug) for v2 request types. Strictness belongs in validation of known fields, not in rejecting new ones.
""", q=3.8)

add("gotcha", "infra", "Rollouts return 502s without a preStop sleep", "k8s deploy", """
During rolling deploys the ingress kept sending traffic to pods that had already received SIGTERM for a second or two, and those requests got 502. Every service now has `lifecycle.preStop: sleep 10` and `terminationGracePeriodSeconds: 40`, and axum's graceful shutdown waits for in-flight requests.
""", q=3.9)

add("gotcha", "infra", "Readiness probes must not check the database", "k8s postgres incident", """
ledger-api's readiness probe ran `SELECT 1`. When Postgres got slow for 40 seconds on 10 March, every pod failed readiness at once, the service had zero endpoints, and a slow database turned into a full outage. Readiness now only checks that the process can serve; DB health is a metric and an alert, not a probe.
""", k="gotcha-readiness", q=4.6, date="03-11", feel={"fear": 0.55, "urgency": 0.6})

add("gotcha", "ledger", "Adding a CHECK constraint locks postings", "migrations postgres performance", """
Adding a NOT NULL column with a constant default is instant on PG 11+, but adding a `CHECK` constraint scans the whole table under an `ACCESS EXCLUSIVE` lock — 400M rows in `postings`. Always add it `NOT VALID` in one migration and `VALIDATE CONSTRAINT` in the next (validation takes only a `SHARE UPDATE EXCLUSIVE` lock).
""", k="gotcha-check-constraint", q=4.5)

add("gotcha", "ledger", "CREATE INDEX CONCURRENTLY inside a sqlx migration", "migrations sqlx postgres", """
sqlx runs each migration in a transaction and `CREATE INDEX CONCURRENTLY` can't run in one: `CREATE INDEX CONCURRENTLY cannot run inside a transaction block`. Put `-- no-transaction` as the very first line of the migration file. And one concurrent index per file — if it fails halfway it leaves an INVALID index you have to drop by hand.
""", q=4.4)

add("gotcha", "web", "StrictMode double effects created duplicate draft payouts", "web react", """
In dev, React StrictMode runs effects twice. The "new payout" page created a draft payout in a `useEffect` on mount, so every visit in dev made two drafts. Production was fine, which is why nobody believed the bug report from finance ops' staging session. Side effects that create things belong in event handlers or mutations, not mount effects.
""", q=3.5)

add("gotcha", "web", "refetchOnWindowFocus caused balance request storms", "web performance react", """
Default TanStack Query settings refetch every active query when the window regains focus. Finance ops keep ~30 Console tabs open; alt-tabbing fired hundreds of balance requests at once and tripped the rate limiter for their own API key. Ledger views now set `refetchOnWindowFocus: false` and a 30 s `staleTime`.
""", q=3.8)

add("gotcha", "ledger", "FX rates feed parsed as f64", "fx money", """
The rates client used `serde_json::Value::as_f64()` on the provider feed. Rates like `1.0850` look fine, but `0.92135` became `0.9213499999999999` and the 10-digit snapshot stored the wrong last digit. Use `serde_json` with the `arbitrary_precision` feature or deserialize the field as `String` and parse into `Decimal`.
""", k="gotcha-fx-f64", q=4.0, rel=[("dec-fx", "related", 0.7)])

add("gotcha", "ci", "nextest retries hid a real race", "flaky-test testing ci", """
We had `retries = 2` in the CI profile. `payout_batch_submits_once` failed on first attempt ~3% of the time and passed on retry, so CI was green — and the race it exposed (two workers claiming the same batch) reached production. Retries are now 0 for everything under `payouts-worker`, and the flaky dashboard lists tests that passed only on retry.
""", k="gotcha-retries", q=4.6)

add("gotcha", "payouts", "ACH returns arrive weeks after `paid`", "payouts reconciliation", """
A payout marked `paid` can still come back: R01 (insufficient funds) within 2 banking days, R10 (unauthorized) up to 60 days. The merchant payout export assumed `paid` was final and finance ops reconciled against it. Returns post a reversal to `payouts_in_flight` and re-credit the merchant balance.
""", k="gotcha-ach-returns", q=4.3)

add("gotcha", "web", "Refresh token rotation logs out one of two tabs", "auth web", """
Keycloak rotates refresh tokens. Two Console tabs refreshing at the same moment both send the same refresh token; one wins, the other gets `invalid_grant` and the user is logged out. Fix: a `BroadcastChannel` lock so only one tab refreshes and the others wait for the new token.
""", q=3.9, rel=[("dec-keycloak", "related", 0.6)])

add("gotcha", "ledger", "A static test pool leaks under cargo test but not nextest", "testing sqlx", """
A helper kept a `static POOL: OnceCell<PgPool>`. Under nextest every test is its own process, so it worked. Under plain `cargo test` all tests share the process, the pool outlived each test's database, and tests started failing with `database "_sqlx_test_…" does not exist`. Don't cache pools in statics in test code.
""", q=3.3)

add("gotcha", "ci", "cargo-chef cache invalidated by every Renovate PR", "ci tooling dependencies", """
The Docker build's dependency layer is keyed on `recipe.json`, which includes `Cargo.lock`. Renovate touches `Cargo.lock` in almost every PR, so the expensive layer rebuilt every time (≈11 minutes). We now build images only on `main` and tags; PRs run tests without building the image.
""", q=3.1)

add("gotcha", "ledger", "LedgerImbalance alert fires during backfills", "alerts migrations on-call", """
The `LedgerImbalance` check query sums postings per currency across all entries. During the `entry_kind` backfill it read a half-updated state through a different code path and paged twice at 3am. Backfills now run with the alert silenced via the `backfill_in_progress` inhibit label, and the check only considers entries older than 5 minutes.
""", q=4.0, rel=[("gotcha-check-constraint", "related", 0.4)])

add("gotcha", "ledger", None, "postgres sqlx", """
Heads up: `numeric` columns map to `BigDecimal`/`Decimal` in sqlx only with the matching feature enabled, and the error when it's missing is a confusing trait-bound message about `Decode<Postgres>`. We don't use `numeric` for amounts anyway; if a new table needs one (rates), enable `rust_decimal` on sqlx, not `bigdecimal`.
""", q=2.9)

add("gotcha", "payouts", "reqwest has no timeout by default", "payouts performance incident", """
The Fjordbank status poller hung for 15 minutes on a half-open connection: reqwest's client has no request timeout unless you set one. All rail adapters now build clients through `rails::http_client()` which sets connect 5 s, request 30 s and pool idle 60 s.
""", q=4.3, feel={"urgency": 0.58})

add("gotcha", "ci", "Amounts are strings in jq too", "ci tooling money", """
CI smoke scripts did `jq '.amount + 100'` on API responses and got `string ("12500") and number (100) cannot be added`. Use `(.amount | tonumber)` for small test amounts, and remember that tonumber is a double — don't do this for anything that checks real totals.
""", q=2.7)

add("gotcha", "web", "Excel drops the Z from exported timestamps", "web compliance", """
Finance ops open the CSV export in Excel, which parses `2026-05-14T09:15:22.120Z` as local time and drops the zone when re-saving. Their reconciliation spreadsheet was off by 2 hours in summer. The export now has a separate `created_at_utc` column in `YYYY-MM-DD HH:MM:SS` plus a header note.
""", q=3.2)

add("gotcha", "api", "Rate limiter counts failed requests too", "api performance", """
The Redis token bucket charges a token before the handler runs, so a merchant's retry loop on 422 errors can lock them out of the API for successful requests too. Intended behaviour, but support should know it: a 429 storm after a validation error is usually this.
""", q=3.0)

add("gotcha", "sdk", "Node fetch keeps the process alive on timeouts", "sdk typescript", """
In the SDK, a request aborted by our timeout still left the undici socket open for its keep-alive period, so short scripts using the SDK took 4 extra seconds to exit. Call `response.body?.cancel()` on aborted/failed responses; covered by the `exits promptly` test now.
""", q=3.4)

add("gotcha", "recon", "camt.053 entries can be batched", "reconciliation", """
One `Ntry` in a camt.053 statement can contain many `TxDtls` (batch booking). We matched on the entry amount and missed all individual payouts in a batch. Always iterate `NtryDtls/TxDtls` and fall back to the entry only when there are no details.
""", q=3.9)

# ---------------------------------------------------------------- architecture

add("architecture", "team", "Service map", "ledger api payouts webhooks docs", """
## Services (per region)

| service | crate / package | does |
|---|---|---|
| ledger-api | `crates/ledger-api` | public REST API, idempotency, auth, rate limits |
| ledger-core | `crates/ledger-core` | library: postings, balances, holds, FX — no I/O except Postgres |
| payouts-worker | `crates/payouts-worker` | batches payouts, talks to bank rails, polls status |
| recon | `crates/recon` | ingests bank statements, matches, raises exceptions |
| webhooks-dispatcher | `crates/webhooks` | consumes events, delivers signed webhooks with retries |
| outbox-relay | `crates/outbox-relay` | moves `outbox` rows to Redpanda |
| Console | `console/` | React dashboard for merchants and finance ops |

## Data
One Postgres 16 cluster per region (primary + failover replica + analytics replica), PgBouncer in front. Redpanda for events. Redis only for rate limiting.

## Rule of thumb
Only ledger-core writes to ledger tables. Everything else calls it, or reads.
""", k="arch-map", q=4.7, date="01-13", conf=0.9, status="validated")

add("architecture", "ledger", "Ledger data model", "ledger postgres docs", """
- **book** — a set of accounts that balance together; one per region and legal entity.
- **account** — `code`, `currency`, `normal_balance` (debit|credit). One currency per account.
- **journal_entry** — immutable header: `id`, `kind`, `effective_at`, `reverses`, `idempotency_ref`, `metadata`.
- **posting** — `entry_id`, `account_id`, `amount_minor` (signed: debit positive), `currency`.
- **account_balances** — running `posted` and `pending` per account, updated in the posting transaction.
- **holds** — reduce available balance; not postings.

Invariant: for each entry and currency, `SUM(amount_minor) = 0`. Available = posted − active holds.
""", k="arch-model", q=4.6, rel=[("dec-invariant", "depends_on", 0.9), ("dec-holds", "related", 0.6)])

add("architecture", "api", "Life of a transfer request", "api ledger idempotency", """
1. `POST /v2/transfers` hits the ingress → ledger-api.
2. Auth layer resolves the API key (SHA-256 lookup, cached 60 s) and the merchant's pinned version.
3. Version layer upgrades the request body to the newest shape.
4. Idempotency layer: look up `(key_id, idempotency_key)`; replay if present, 422 if body hash differs, otherwise insert a `pending` row.
5. Handler calls `ledger_core::transfer()` in one DB transaction: lock balances (ordered), check available, insert entry + postings, update balances, insert outbox event.
6. Commit; deferred trigger validates the entry.
7. Idempotency row is completed with the response; version layer downgrades the response.
""", k="arch-transfer", q=4.5, rel=[("conv-idem", "implements", 0.7), ("dec-balances", "depends_on", 0.8)])

add("architecture", "team", "Outbox relay and consumers", "outbox kafka webhooks", """
`outbox(id bigserial, event_id ulid, topic, key, payload jsonb, created_at, sent_at)`.

The relay takes a Postgres advisory lock (one active relay per region), reads unsent rows in id order in batches of 500, produces them to Redpanda with `key` = account or payout id (so per-key order holds), and sets `sent_at`. A crash between produce and update re-sends a batch — consumers dedupe on `event_id`.

Consumers: webhooks-dispatcher, recon (payout events), the warehouse sink.
""", k="arch-outbox", q=4.2, rel=[("dec-outbox", "implements", 0.9)])

add("architecture", "webhooks", "Webhook dispatcher", "webhooks kafka performance", """
Per endpoint there's a logical queue; delivery is at-least-once with per-endpoint ordering *not* guaranteed after a retry.

Retry schedule after the first failure: 1 min, 5 min, 30 min, 2 h, 6 h, then every 12 h up to 72 h total. A 2xx within 10 s is success; anything else (including redirects) is failure. An endpoint failing continuously for 72 h is disabled and the merchant gets an email.

A slow endpoint can't starve others: each endpoint has a concurrency of 4 and a global pool of 512 in-flight deliveries.
""", q=4.0)

add("architecture", "recon", "Reconciliation pipeline", "reconciliation payouts ledger", """
1. **Ingest** — SFTP pull at 05:30/06:00 UTC: camt.053 (EU banks), BAI2 (US bank). Raw file stored with object lock, parsed into `statement_lines`.
2. **Match** — rules in order: exact reference (`po_…` in remittance/EndToEndId), then amount + value date ±1 business day + counterparty IBAN. A line matches at most one ledger item.
3. **Exceptions** — unmatched lines and unmatched expected items older than 2 business days go to the exceptions queue in the Console.
4. **Adjust** — finance ops resolve exceptions; resolutions that move money create journal entries through ledger-core, never direct SQL.
""", k="arch-recon", q=4.1, rel=[("dec-recon-split", "related", 0.5)])

add("architecture", "payouts", "Payout rails adapter", "payouts rust", """
Each bank rail implements:

```rust
#[async_trait]
pub trait Rail {
    fn id(&self) -> RailId;
    async fn submit(&self, batch: &PayoutBatch) -> Result<SubmitReceipt, RailError>;
    async fn status(&self, receipt: &SubmitReceipt) -> Result<Vec<PayoutStatusUpdate>, RailError>;
    fn parse_return(&self, line: &StatementLine) -> Option<PayoutReturn>;
}
```

Rails today: `sepa_ct` (Fjordbank, pain.001), `sepa_instant` (behind flag), `ach` (US bank, NACHA file), `fps` (UK Faster Payments via API). `RailError::Retryable` vs `RailError::Rejected` decides whether the batch is retried or payouts fail.
""", k="arch-rails", q=3.9)

add("architecture", "web", "Console architecture", "web react auth feature-flags", """
- Routing: TanStack Router, file-based, routes under `console/src/routes/`.
- Data: TanStack Query over the generated SDK client; query keys from `queryKeys.ts`.
- Auth: Keycloak OIDC with PKCE; `useSession()` exposes the user, roles and merchant.
- Flags: Unleash frontend proxy, `useFlag('console_new_balances_page')`.
- UI: our own small component set on Radix primitives; no CSS framework, CSS modules.
- Money: always through `<Amount>` and `formatMoney` from `@quaylight/money`.
""", q=3.8)

add("architecture", "ci", "CI pipeline", "ci testing release", """
On every PR (GitHub Actions, self-hosted runners in eu-central-1):

1. `lint` — fmt, clippy `-D warnings`, `cargo deny`, console eslint + tsc.
2. `test-rust` — nextest with a Postgres 16 service container, 4 shards.
3. `test-web` — vitest, then Playwright against a preview build with a mocked API.
4. `openapi` — regenerate and diff `openapi.json`.
5. `sqlx` — `cargo sqlx prepare --check`.

On `main`: build images with cargo-chef, push to ECR, bump the image tag in `deploy/staging`. Prod promotion is a PR to `deploy/prod-*`, approved by a second person.
""", k="arch-ci", q=4.0)

add("architecture", "infra", "Deploy topology", "deploy k8s", """
- **Clusters:** `staging-eu`, `prod-eu` (eu-central-1), `prod-us` (us-east-2). EKS, managed node groups, Karpenter for the worker pool.
- **Argo CD:** one instance per cluster, apps generated by an ApplicationSet from `deploy/<env>/<service>/`.
- **Ingress:** AWS ALB → ingress-nginx (we need the mTLS for the bank callbacks).
- **Rollouts:** plain Deployments with maxSurge 25%, maxUnavailable 0. Canarying is manual via flags.
- **Postgres:** RDS, not in-cluster. Redpanda: in-cluster StatefulSet on dedicated nodes.
""", q=3.7, date="08-19")

add("architecture", "infra", "Observability stack", "observability alerts", """
Traces: OTel SDK in every service → regional collector (tail sampling) → Tempo.
Metrics: Prometheus (kube-prometheus-stack), 13-month retention in Mimir.
Logs: JSON to stdout → Vector → Loki. Trace id is in every log line, so Grafana links logs ↔ traces.
Alerts: Alertmanager → PagerDuty (pages) and #alerts (warnings). SLO burn-rate alerts are generated by sloth from `slos/*.yaml`.
""", q=3.9)

add("architecture", "api", "Idempotency store", "idempotency postgres api", """
Table `idempotency_keys(api_key_id, key, request_hash, state, response_status, response_body, created_at)`, primary key `(api_key_id, key)`.

- Insert with `state = 'pending'` inside its own short transaction *before* the business transaction; conflict → look at the existing row.
- `pending` and older than 60 s → the previous attempt crashed; we retry the business logic, which is safe because the ledger entry carries `idempotency_ref` with a unique index.
- Cleanup job deletes rows older than 24 h, in batches of 10k.

The unique index on `journal_entries.idempotency_ref` is the real guarantee; the table is for replaying responses.
""", k="arch-idem", q=4.4, rel=[("conv-idem", "implements", 0.9)])

add("architecture", "team", "Auth model", "auth security api", """
- **Merchant** — the customer. Has API keys (secret, restricted, publishable) and Console users.
- **Console user** — a Keycloak user linked to one or more merchants with a role: `owner`, `admin`, `developer`, `analyst` (read-only).
- **Staff** — Quaylight employees, Keycloak `staff` realm, roles `support`, `finance_ops`, `engineer`. Staff access to a merchant is logged and shown to the merchant in their audit log.

Authorization is checked in ledger-api only; the Console hides buttons for UX but never enforces anything.
""", q=4.0)

add("architecture", "ledger", None, "fx ledger money", """
Multi-currency transfers are two journal entries linked by a `conversion_id`: one in the source currency (merchant balance → `fx:position:<src>`), one in the target currency (`fx:position:<dst>` → destination). Each entry balances in its own currency. The rate, provider and timestamp are on the conversion row. The FX position accounts are what treasury looks at to hedge.
""", q=3.6, rel=[("dec-fx", "depends_on", 0.7)])

add("architecture", "sdk", "TypeScript SDK layout", "sdk typescript api", """
`sdk/src/generated/` is openapi-typescript output — never edit. `sdk/src/client.ts` wraps `fetch` with retries (only on network errors and 5xx, only for requests with an idempotency key), timeouts, and version pinning. Resources (`transfers`, `payouts`, …) are thin typed wrappers. `MinorUnits` is a branded `bigint` so amounts can't be mixed with plain numbers by accident.
""", q=3.5, rel=[("dec-utoipa", "depends_on", 0.7)])

add("architecture", "api", "Rate limiting", "api performance security", """
Token bucket per API key in Redis (Lua script, one round trip). Default: 100 requests/s burst 200 for live keys, 25/s for test keys. Money-moving endpoints have a separate, lower bucket. If Redis is unreachable the limiter fails *open* and increments `ratelimit_redis_errors_total` — we'd rather serve than go down with Redis.
""", q=3.6)

add("architecture", "team", "Warehouse export", "postgres compliance", """
Nightly job copies the previous day's journal entries, postings, payouts and statement lines from the analytics replica into Parquet files in `s3://ql-warehouse-<region>/`, partitioned by `date`. BigQuery (EU) and Athena (US) read them as external tables. No PII beyond redacted IBANs; merchant names are joined from a separate, access-controlled table.
""", q=3.0)

add("architecture", "payouts", "Payout batching", "payouts ledger", """
Payouts are created continuously but submitted in batches per rail and currency: SEPA every 30 minutes 07:00–16:00 CET, ACH at the two same-day windows, FPS immediately (batch of one). Creating a payout moves money `merchant_balance → payouts_in_flight`; `paid` moves `payouts_in_flight → assets:bank`; `failed`/`returned` reverse back to the merchant.
""", q=3.8, rel=[("dec-payout-states", "related", 0.7), ("arch-rails", "related", 0.6)])

# -------------------------------------------------------------------- glossary

add("glossary", "shared", "Posting", "ledger docs", """
One line of a journal entry: an amount (signed, in minor units) against one account. Debits are positive, credits negative in our storage. A posting never exists alone.
""", q=4.0)

add("glossary", "shared", "Journal entry", "ledger docs", """
An atomic, immutable set of postings that sum to zero per currency. Identified by `je_…`. Has a `kind` (`transfer`, `payout`, `fee`, `conversion`, `reversal`, `adjustment`) and an `effective_at`.
""", q=4.1)

add("glossary", "shared", "Normal balance", "ledger docs onboarding", """
Whether an account's balance is naturally a debit or a credit. Assets and expenses are debit-normal; liabilities, equity and revenue are credit-normal. The merchant balance is a *liability* to us, so when a merchant's balance goes up, we credit it. This confuses every new engineer exactly once.
""", q=4.3)

add("glossary", "shared", "Hold", "ledger api", """
A reservation against an account's available balance, e.g. a pending card-funded top-up or a payout awaiting approval. Expires automatically (`expires_at`) unless captured or released. Not a posting.
""", q=3.6)

add("glossary", "shared", "Settlement batch", "payouts docs", """
A group of payouts submitted to one rail in one file or API call. Has its own id (`pb_…`), the bank's file reference, and a status that summarizes its payouts.
""", q=3.0)

add("glossary", "shared", "ACH return", "payouts reconciliation", """
A US ACH payment sent back by the receiving bank with a reason code (R01 insufficient funds, R02 account closed, R03 no account, R10 unauthorized…). Can arrive days or weeks after settlement. For us it turns a `paid` payout into `returned`.
""", q=3.4)

add("glossary", "shared", "SEPA recall", "payouts compliance", """
A request from the originating bank to get a SEPA credit transfer back (duplicate, fraud, technical error). Unlike a return, the beneficiary bank may refuse it. We only initiate recalls for duplicates and fraud, and only through Fjordbank's portal.
""", q=3.1)

add("glossary", "shared", "camt.053", "reconciliation docs", """
ISO 20022 end-of-day bank-to-customer statement (XML). Our EU banks deliver one per account per business day. Entries (`Ntry`) may contain multiple transaction details (`TxDtls`).
""", q=3.5)

add("glossary", "shared", "BAI2", "reconciliation docs", """
Bank Administration Institute's flat-file statement format used by US banks. Record types: 01 file header, 02 group, 03 account, 16 transaction detail, 88 continuation, 49/98/99 trailers.
""", q=3.2)

add("glossary", "shared", "Suspense account", "ledger reconciliation", """
`liabilities:suspense:<currency>` — where money that arrived at the bank but can't be attributed yet is booked until finance ops figure out whose it is. Its balance should trend to zero; an aging report runs daily.
""", q=3.7)

add("glossary", "shared", "Nostro", "ledger fx", """
Our account held at a bank, in that bank's currency ("ours, with you"). In the chart of accounts these are the `assets:bank:<bank>:<currency>` accounts.
""", q=2.9)

add("glossary", "shared", "Value date vs booking date", "reconciliation ledger", """
Booking date: when the bank recorded the transaction on the account. Value date: when the funds are considered available / interest-bearing. They differ around weekends and holidays. Recon matches on value date; the statement shows both.
""", q=3.8)

add("glossary", "shared", "Minor units", "money docs", """
The smallest unit of a currency as an integer: cents for EUR, yen for JPY (exponent 0), fils for KWD (exponent 3). All our amounts are stored and transmitted in minor units.
""", q=4.0)

add("glossary", "shared", "Idempotency key", "idempotency api docs", """
A client-chosen string (we recommend a UUID) sent in the `Idempotency-Key` header that makes retries of the same request safe: the second request returns the first one's response instead of moving money again.
""", q=3.9)

add("glossary", "shared", "Rail", "payouts", """
Internal term for a payment network + bank integration we can send payouts through: `sepa_ct`, `sepa_instant`, `ach`, `fps`.
""", q=2.8)

add("glossary", "shared", "Recon exception", "reconciliation", """
A statement line nobody matched, or an expected ledger movement (payout, top-up) with no statement line after 2 business days. Lives in the exceptions queue until a finance ops person resolves it with a reason.
""", q=3.3)

add("glossary", "shared", "Available balance", "ledger api", """
Posted balance minus active holds (and minus `pending` for debit-normal reporting views). The number the API checks before allowing a transfer or payout; not the same as the number on the bank statement.
""", q=3.6)

add("glossary", "shared", "Books closed", "ledger compliance", """
Finance ops "close the books" for a month on the 5th business day: entries with `effective_at` in a closed month can no longer be posted; corrections go into the current month with a reference to the original period.
""", q=3.1)

add("glossary", "team", "Larch", "release api", """
Internal codename for the v2 API project (transfers + holds + date versioning), January to April 2026. Old tickets and branch names still say `larch/`.
""", q=2.5)

add("glossary", "team", "Game day", "on-call incident", """
A scheduled half-day where we break something in staging on purpose (kill the Postgres primary, partition Redpanda, expire the bank mTLS cert) and the on-call rotation practises the runbooks. The output is a list of runbook fixes.
""", q=3.2)

# ---------------------------------------------------------------------- skills

add("skill", "team", "Skill: add a database migration", "migrations sqlx postgres", """
1. `cargo sqlx migrate add -r <description>` in `crates/ledger-core` (we use reversible files only for local dev; prod never runs downs).
2. Large tables (`postings`, `journal_entries`, `outbox`): no table rewrites, `NOT VALID` then `VALIDATE` for constraints, `-- no-transaction` + `CONCURRENTLY` for indexes.
3. `just db-reset && just migrate` locally, then `cargo sqlx prepare --workspace -- --all-targets`.
4. Open the migration as its own PR; label `migration` so the deploy bot runs it in staging first.
5. Watch `pg_stat_activity` for lock waits during the staging run.
""", k="skill-migration", q=4.6, rel=[("conv-migrations", "implements", 0.8), ("gotcha-check-constraint", "related", 0.6)])

add("skill", "webhooks", "Skill: add a webhook event type", "webhooks outbox api-design", """
1. Add the variant to `EventType` in `crates/ledger-core/src/events.rs` with its payload struct (derive `ToSchema`).
2. Emit it through `outbox::enqueue` inside the same transaction as the state change.
3. Regenerate `openapi.json`; the webhook docs page picks it up.
4. Add it to the Console's endpoint subscription picker (`eventCatalog.ts`).
5. Changelog entry under "Added". No API version needed — new events are additive, but merchants subscribed to `*` will start receiving it, so mention that.
""", q=4.0)

add("skill", "api", "Skill: ship a breaking API change as a new version", "api api-design release sdk", """
1. Create `crates/ledger-api/src/versions/v2026_xx_xx.rs` implementing `VersionChange` with `upgrade_request` and `downgrade_response`.
2. Register it in `versions/mod.rs` in date order.
3. Handlers change to the new shape only.
4. Tests: the version test harness replays recorded fixtures at every supported version.
5. Docs: upgrade guide page + changelog. SDK: new major if the default version changes.
""", q=4.1, rel=[("conv-versions", "implements", 0.9)])

add("skill", "ledger", "Skill: investigate a LedgerImbalance page", "ledger on-call incident alerts", """
1. Don't panic: the trigger makes a committed imbalance almost impossible. First suspect the *check*.
2. Run the check query by hand on the analytics replica with the entry ids from the alert.
3. If the entries are balanced now: replication lag or a mid-backfill read — resolve and note it.
4. If truly unbalanced: stop `payouts-worker` (scale to 0), page Priya, do **not** post corrections yet. Capture `SELECT * FROM postings WHERE entry_id = ANY(…)` into the incident doc.
5. Corrections only via reversal entries after two people agree on them.
""", k="skill-imbalance", q=4.8, rel=[("dec-reversal", "related", 0.6)])

add("skill", "web", "Skill: run the Console against staging", "web dx auth", """
`cd console && pnpm dev:staging`. It proxies `/api` to staging through Vite so cookies work, and uses the `console-dev` Keycloak client that allows `localhost:5173` redirects. You need the `engineer` role in the staging staff realm — ask in #platform if login loops.
""", q=3.6)

add("skill", "webhooks", "Skill: rotate a merchant's webhook secret", "webhooks security", """
Console → Developers → Webhooks → endpoint → "Roll secret". Pick an expiry for the old secret (default 24 h). During the overlap both signatures are sent. Support can do it on the merchant's behalf from the staff view; it's audit-logged. Never send secrets over email — the merchant reveals it in the Console.
""", q=3.4)

add("skill", "ci", "Skill: hunt a flaky test", "flaky-test testing ci", """
1. Find it on the flaky dashboard (Grafana → CI → "passed on retry").
2. Reproduce locally: `cargo nextest run -p <crate> <test> --retries 0 --stress-count 200` (nextest ≥0.9.80) or loop with `for i in $(seq 200)`.
3. Usual suspects: shared state in statics, wall clock, ordering of `HashMap` iteration, tasks not awaited before assertions.
4. If you can't fix it today, mark `#[ignore = "flaky: <ticket>"]` and open the ticket — don't add retries.
""", k="skill-flaky", q=4.2, rel=[("gotcha-retries", "related", 0.8)])

add("skill", "team", "Skill: cut a release", "release deploy", """
1. Merge the release-please PR for the component; it tags `<component>-vX.Y.Z`.
2. The tag build pushes images; the bot opens `deploy/prod-eu` and `deploy/prod-us` PRs.
3. Deploy prod-eu first. Watch the SLO dashboard and error logs for 30 minutes.
4. Then prod-us. Post the changelog link in #releases.
5. Fridays after 14:00 and freeze periods: don't.
""", q=3.9, rel=[("dec-freeze", "related", 0.5)])

add("skill", "infra", "Skill: replay outbox events", "outbox kafka on-call", """
If a consumer lost events (bad deploy, wrong offset reset), don't re-produce from Redpanda by hand. Use `outbox-relay replay --since '2026-…' --topic payouts --dry-run` to list what would be re-sent, then without `--dry-run`. It produces the original `event_id`s, so idempotent consumers ignore what they already processed.
""", q=4.0, rel=[("arch-outbox", "related", 0.7)])

add("skill", "payouts", "Skill: add a payout rail", "payouts rust testing", """
Implement `Rail` in `crates/payouts-worker/src/rails/<name>.rs`, add the rail to `RailId` and config, add a sandbox integration test gated behind `--features sandbox`, map every bank status/return code explicitly (no catch-all `_ => Failed`), and add a flag `payouts_<rail>` defaulting off. Finance ops must sign off the return-code mapping.
""", q=3.7, rel=[("arch-rails", "implements", 0.8)])

add("skill", "api", "Skill: load test with k6", "performance testing api", """
Scripts in `loadtest/`. `k6 run loadtest/transfers.js -e BASE_URL=https://api.staging.quaylight.dev -e RATE=400`. Use the `loadtest` merchant — it has 500 accounts so lock contention is realistic. Tell #platform before running; staging alerts will fire. Results go into `loadtest/results/` as a short markdown note with the commit hash.
""", q=3.5)

add("skill", "team", "Skill: set up a dev machine", "onboarding dx tooling", """
1. Install rustup (the toolchain installs itself from `rust-toolchain.toml`), Node 20 via mise, pnpm via corepack, Docker.
2. `just bootstrap` — starts Postgres 16, Redis and Redpanda in compose, runs migrations, seeds the `dev` merchant.
3. `cargo nextest run --workspace` and `cd console && pnpm i && pnpm test` should both be green.
4. `just dev` runs ledger-api + console with hot reload.
If `just bootstrap` fails on Apple Silicon with Redpanda, set `REDPANDA_IMAGE=…-arm64` in `.env.local`.
""", k="skill-setup", q=4.4)

# -------------------------------------------------------------------- attempts

add("attempt", "ledger", "SERIALIZABLE isolation for transfers", "ledger postgres performance", """
**Tried:** running the transfer transaction at `SERIALIZABLE` so we wouldn't need explicit row locks.

**Why it failed:** under the k6 run at 400 transfers/s, 28–31% of transactions aborted with `could not serialize access due to read/write dependencies`. Retrying made the tail latency terrible (p99 4.2 s) and the hot fee account made it worse.

**Instead:** `READ COMMITTED` + explicit ordered `FOR UPDATE` on balance rows.
""", k="att-serializable", q=4.2, rel=[("dec-balances", "related", 0.8)])

add("attempt", "api", "Dynamic filters with sqlx::query!", "sqlx api", """
**Tried:** building the list-transfers query (optional status, date range, account, metadata filter) with `query_as!` and `($1::text IS NULL OR status = $1)` tricks.

**Why it failed:** the planner can't use the right index when every predicate is optional; p95 went from 20 ms to 900 ms for large merchants.

**Instead:** `sqlx::QueryBuilder` with only the predicates actually present, and a test per filter combination that checks `EXPLAIN` uses an index.
""", q=3.8)

add("attempt", "team", "Debezium CDC instead of an outbox", "kafka outbox postgres", """
**Tried:** streaming ledger changes to Redpanda with Debezium reading the WAL, so services wouldn't need to write events explicitly.

**Why it failed:** consumers were coupled to table layouts (every migration became a breaking event change), events had no business meaning (`postings` insert vs "transfer posted"), and a replication slot that stalled filled the primary's disk in staging in 3 hours.

**Instead:** explicit outbox rows with versioned payloads.
""", k="att-debezium", q=4.3, date="01-26")

add("attempt", "ledger", "Balances as SUM over postings", "ledger postgres performance", """
**Tried:** no stored balances — compute `SUM(amount_minor)` over postings per account with a covering index `(account_id) INCLUDE (amount_minor)`.

**Why it failed:** fine for small merchants, but the largest merchant has 30M postings on its balance account: 800 ms p99 for a balance read, and transfers need the balance under lock.

**Instead:** running balances in `account_balances` updated in the posting transaction.
""", k="att-sum-balances", q=4.0)

add("attempt", "ci", "Coverage on every PR", "ci testing tooling", """
**Tried:** `cargo llvm-cov nextest` on every PR with a coverage comment.

**Why it failed:** instrumented builds added ~9 minutes and invalidated sccache (different RUSTFLAGS). People started ignoring the comment within a week.

**Instead:** nightly coverage on `main`, published to the CI dashboard.
""", q=3.2)

add("attempt", "web", "Next.js app router for the Console", "web react auth", """
**Tried:** a two-week prototype of the Console on Next.js 14 app router.

**Why it failed:** every page is authenticated, so server components needed the user's token on the server — we'd have had to run a Node BFF that holds tokens, which security didn't want. Caching defaults caused stale balances. Build and deploy got more complex for no user-visible gain.

**Instead:** Vite SPA on the CDN.
""", k="att-nextjs", q=3.9, date="01-19")

add("attempt", "web", "BigInt arithmetic straight in React state", "web typescript money", """
**Tried:** keeping amounts as `bigint` in form state and React Query cache.

**Why it failed:** `JSON.stringify` throws `TypeError: Do not know how to serialize a BigInt` — React Query devtools, our Sentry breadcrumbs and the `persistQueryClient` cache all died on it.

**Instead:** keep the wire string in state; convert to `bigint` only inside `@quaylight/money` functions.
""", q=3.7, rel=[("dec-string-amounts", "related", 0.5)])

add("attempt", "infra", "PgBouncer in session mode", "postgres performance", """
**Tried:** switching PgBouncer to session pooling to get rid of the prepared statement errors.

**Why it failed:** session mode pins a server connection per client connection; with 6 pods × 32 pool connections × 3 services we hit `max_connections` on RDS within minutes of the deploy.

**Instead:** transaction mode with PgBouncer ≥1.21 and `max_prepared_statements`.
""", q=3.6, rel=[("gotcha-pgbouncer", "related", 0.9)])

add("attempt", "ledger", "SQLite for fast unit tests", "testing postgres", """
**Tried:** running ledger-core unit tests against SQLite in memory to avoid Docker in the inner loop.

**Why it failed:** no deferred constraint triggers, no `FOR UPDATE`, different `timestamptz` handling — the tests passed against behaviour production doesn't have. Two bugs slipped through in a week.

**Instead:** `#[sqlx::test]` against real Postgres; `just check-fast` for the quick loop skips DB tests instead of faking them.
""", q=4.1)

add("attempt", "api", "tokio-console in production", "tokio observability performance", """
**Tried:** enabling `console-subscriber` in prod-eu ledger-api to find a task that was starving the runtime.

**Why it failed:** it needs `tokio_unstable` and records every task spawn; CPU went up ~12% and memory grew steadily. Also exposes a port we had to firewall.

**Instead:** reproduced in staging with tokio-console; in prod we rely on the `tokio_metrics` runtime metrics exported to Prometheus.
""", q=3.3)

add("attempt", "infra", "musl static binaries", "rust performance deploy", """
**Tried:** building ledger-api for `x86_64-unknown-linux-musl` to ship a `scratch` image.

**Why it failed:** musl's allocator was ~30% slower on the JSON-heavy endpoints and DNS resolution behaved differently with the cluster's search domains.

**Instead:** glibc build on distroless `cc` with jemalloc.
""", q=3.4)

add("attempt", "webhooks", "Infinite keep-alive to merchant endpoints", "webhooks performance", """
**Tried:** keeping HTTP connections to each merchant endpoint open indefinitely to save TLS handshakes.

**Why it failed:** many merchants sit behind load balancers with 60 s idle timeouts that reset without a FIN; we got `ECONNRESET`/`connection closed before message completed` on the next delivery, which counted as a failure and triggered a retry.

**Instead:** pool idle timeout 30 s and one automatic immediate retry on a reused-connection reset.
""", q=3.8)

add("attempt", "team", "Renovate automerge for minor Rust updates", "dependencies ci", """
**Tried:** automerging Renovate's grouped minor/patch Rust PRs when CI was green.

**Why it failed:** a `tower-http` minor release changed the default of `CompressionLayer` to also compress `application/problem+json`, which one merchant's client couldn't handle. CI was green; nothing tested that.

**Instead:** no automerge; grouped PRs get a quick human read of the changelogs.
""", q=3.1)

add("attempt", "recon", "Fuzzy matching on remittance text", "reconciliation", """
**Tried:** Levenshtein similarity between the statement's remittance information and the payout description, to match lines where the bank mangled our reference.

**Why it failed:** merchants use near-identical descriptions ("Payout March", "Payout March 2") — 4% false positives on a month of real statements. A false positive is worse than an exception.

**Instead:** exact reference match first, then amount + value date window + counterparty; everything else is an exception for a human.
""", q=4.0)

add("attempt", "ci", "git bisect on a flaky failure", "flaky-test tooling", """
**Tried:** `git bisect run just test-payouts` to find which commit introduced the batch-claim failure.

**Why it failed:** a 3% flake gives random good/bad answers; bisect confidently blamed a docs commit.

**Instead:** make the test deterministic first (run it 200× per step with `--stress-count`), then bisect with the stress run as the predicate.
""", q=3.5, rel=[("skill-flaky", "related", 0.6)])

add("attempt", "infra", "Secrets only in GitHub environments", "security deploy ci", """
**Tried:** moving all deploy-time secrets into GitHub Actions environments.

**Why it failed:** Argo CD syncs from git and never sees Actions secrets; we'd have needed a CI job to push secrets into clusters, i.e. CI with cluster-admin. Security said no.

**Instead:** sops-encrypted files in git + external-secrets.
""", q=3.3)

add("attempt", "api", "OpenAPI generation with aide", "api docs", """
**Tried:** `aide` for generating OpenAPI from axum handlers.

**Why it failed:** at the time it didn't support our versioned request transforms without wrapping every route, and the generated schemas for tagged enums didn't match serde's output.

**Instead:** utoipa with explicit `#[utoipa::path]` annotations.
""", k="att-aide", q=2.9)

add("attempt", "web", "Vitest browser mode for component tests", "testing web", """
**Tried:** vitest browser mode (Playwright provider) for Console component tests, to test real layout.

**Why it failed:** the suite went from 40 s to 6 min and was flaky on CI runners without a GPU.

**Instead:** jsdom for component tests; layout-sensitive things are covered in the Playwright e2e suite.
""", q=3.0)

add("attempt", "ledger", "Partitioning postings by month", "postgres performance migrations", """
**Tried:** declarative range partitioning of `postings` by `created_at` month.

**Why it failed:** unique constraints on a partitioned table must include the partition key, so `(entry_id, account_id)` uniqueness and the `idempotency_ref` unique index on entries would no longer be enforceable globally. Also the deferred trigger got slower.

**Instead:** postponed. Current plan: archive closed years to a separate table instead.
""", q=3.6, status="draft")

add("attempt", "ci", "Building without --locked", "ci dependencies", """
**Tried:** nothing on purpose — the release workflow ran `cargo build --release` without `--locked`.

**What happened:** Cargo resolved a newer patch of `rustls-webpki` than the one tested in CI and the release artifact differed from what passed tests. Every cargo invocation in CI now has `--locked`.
""", q=3.4)

add("attempt", "ledger", "f64 FX rates with final rounding", "fx money", """
**Tried:** keeping rates as `f64` and rounding the converted amount at the end.

**Why it failed:** in a 10k-conversion property test, 7 conversions were one minor unit off compared to exact decimal arithmetic. Treasury reconciles FX positions to the cent.

**Instead:** `Decimal` rates, single half-even rounding.
""", q=3.7, rel=[("dec-fx", "related", 0.8), ("gotcha-fx-f64", "related", 0.6)])

add("attempt", "payouts", "Polling Fjordbank status every 10 seconds", "payouts performance", """
**Tried:** tightening the SEPA status poll from 5 minutes to 10 seconds so payouts would flip to `paid` faster.

**Why it failed:** Fjordbank's API rate limit is 60 requests/minute per client certificate, shared with recon's statement downloads. We got 429s and recon's 06:00 download failed.

**Instead:** 2-minute poll during banking hours, and we subscribed to their status webhooks (beta).
""", q=3.2)

add("attempt", "web", "Optimistic updates for payout approval", "web react payouts", """
**Tried:** optimistic UI for approve/reject in the payout approval queue.

**Why it failed:** approval can be rejected server-side (second approver rule, insufficient available balance). Users saw "Approved", moved on, and the item silently came back. Finance ops preferred a 300 ms spinner to a lie.

**Instead:** pessimistic mutation with a row-level pending state.
""", q=3.9)

# -------------------------------------------------------------- session recaps

add("session_recap", "team", "Recap: idempotency replay returns wrong status", "idempotency api testing", """
## Goal
Find out why replayed idempotent requests returned 200 when the original returned 201.

## Accomplished
- The idempotency row stored the body but not the status; replays defaulted to 200.
- Added `response_status` column (migration `202601231410_idem_status.sql`), backfilled existing rows to 201 for POST creates.
- Test that replays every money-moving endpoint and compares status, headers and body byte for byte.

## Discoveries
- The SDK treated 200 and 201 the same, which is why no merchant noticed. Postman collections in our docs did notice.

## Next steps
- Store `Location` header too (currently recomputed).
""", date="01-23", q=3.8)

add("session_recap", "team", "Recap: v2 transfers endpoint end to end", "api ledger release", """
## Goal
Get `POST /v2/transfers` working end to end on staging for the Larch milestone.

## Accomplished
- Handler, validation, ledger-core `transfer()` with ordered locks, outbox event, OpenAPI annotations.
- k6 at 300/s on staging: p99 140 ms, zero errors.
- SDK `transfers.create()` generated and smoke-tested from a Node script.

## Discoveries
- Deadlock on opposite-direction transfers showed up immediately under k6 — lock ordering fixed it (memory saved).
- `deny_unknown_fields` on request types will hurt forward compat; left a TODO.

## Next steps
- Holds endpoints; version layer; docs pages.
""", date="02-13", q=4.1, rel=[("gotcha-deadlock", "related", 0.7)])

add("session_recap", "team", "Recap: Postgres 16 upgrade in staging", "postgres migrations deploy", """
## Goal
Rehearse the RDS 15 → 16 major upgrade on staging and write the prod runbook.

## Accomplished
- Blue/green deployment on RDS: switchover took 38 s of write unavailability.
- ledger-api retried cleanly; payouts-worker did not — its connection pool held dead connections for 5 minutes. Added `test_before_acquire` for the worker pool.
- Runbook in `docs/runbooks/pg-major-upgrade.md`.

## Discoveries
- Logical replication slots (warehouse) are not carried over by blue/green; the warehouse export needs re-seeding after the switchover.

## Next steps
- Prod-eu upgrade Tuesday 3 Feb 06:00 UTC, Marek driving, Priya on call.
""", date="01-29", q=4.0)

add("session_recap", "team", "Recap: March staging outage follow-up", "incident k8s deploy on-call", """
## Goal
Close the action items from the 10 March staging outage.

## Accomplished
- Readiness probes no longer check the DB (all services).
- Argo self-heal enabled everywhere; `ArgoAppOutOfSync` alert added with runbook.
- Found and reverted the hand-edited memory limit from the outage night.

## Discoveries
- We had three different probe implementations copy-pasted across services. Now one `health` module in `crates/common`.

## Next steps
- Game day in April: Postgres failover with real traffic from k6.
""", date="03-17", q=3.9, rel=[("gotcha-readiness", "related", 0.9), ("gotcha-argo", "related", 0.8)])

add("session_recap", "team", "Recap: date-based versioning layer", "api api-design sdk", """
## Goal
Implement the version layer so `Quaylight-Version` pins request/response shapes.

## Accomplished
- `VersionChange` trait, registry, and tower layer that upgrades requests / downgrades responses.
- First real change: `2026-04-01` renames `transfer.description` → `transfer.memo`; old versions still see `description`.
- Fixture-based test harness that replays every recorded request at every version.

## Discoveries
- Error responses need downgrading too (problem `code` renamed in one case). Easy to forget.
- Webhook payloads are versioned by the *endpoint's* pinned version, not the request's. Wrote it down in the architecture memory.

## Next steps
- Console should show each key's pinned version and an "upgrade" flow.
""", date="03-24", q=4.2)

add("session_recap", "team", "Recap: INC-0419 duplicate SEPA payouts", "incident payouts idempotency on-call", """
## Goal
Stop duplicate payouts, quantify the damage, and make it impossible to repeat.

## Accomplished
- 14 May 08:40 CET: 37 payouts in batch `pb_01HXZ…` were submitted twice (≈ €48,300). payouts-worker was scaled to 0 at 09:05.
- Root cause: the retry path after a Fjordbank 503 rebuilt the pain.001 with a *new* `MsgId`, so the bank's duplicate check didn't fire, and the batch-claim update wasn't conditional on the previous state.
- Fix: batch claim is `UPDATE … WHERE state = 'ready' RETURNING`, retries reuse the stored file byte for byte.
- Recalls filed for all 37; 35 recovered within 6 days, 2 written off after merchant agreement.

## Discoveries
- The race had been visible for weeks as a flaky test that passed on retry.
- Our alerting had no signal for "same payout submitted twice"; added `payouts_submitted_total` by payout id cardinality check.

## Next steps
- Retries 0 for payouts tests (done). Postmortem review on Monday.
""", k="recap-inc0419", date="05-15", q=4.9, feel={"fear": 0.8, "urgency": 0.9, "guilt": 0.5, "narrative_importance": 0.95},
    rel=[("gotcha-retries", "related", 0.9), ("event-inc0419", "related", 0.9)])

add("session_recap", "team", "Recap: SOC 2 evidence collection", "compliance security", """
## Goal
Produce the engineering evidence the auditors asked for in week one of fieldwork.

## Accomplished
- Exported Argo CD sync history and the PR approvals for every prod change in the window (script in `tools/audit/`).
- Demonstrated that the app role can't `UPDATE`/`DELETE` ledger tables (screenshot of `\\dp postings` plus a failed statement).
- Access review of staff Keycloak roles: removed 4 stale `engineer` grants.

## Discoveries
- Break-glass sessions had been logged but nobody reviewed them; now a monthly ticket.

## Next steps
- Answer follow-up on backup restore testing — we have the runbook but no dated evidence of the last restore test.
""", date="06-10", q=3.7)

add("session_recap", "team", "Recap: sccache outage and CI times", "ci tooling performance", """
## Goal
Figure out why CI went from ~8 to ~26 minutes overnight.

## Accomplished
- sccache's GHA backend was getting 429s; switched to the S3 backend.
- Added sccache hit-rate to the CI summary so the next regression is visible.
- Back to 8–9 minutes.

## Discoveries
- sccache doesn't fail the build when the cache is unavailable, by design. We need the metric, not an error.

## Next steps
- Try splitting `test-rust` into 6 shards instead of 4.
""", date="07-02", q=3.6, rel=[("gotcha-sccache", "related", 0.9)])

add("session_recap", "team", "Recap: prod-us launch readiness", "deploy k8s release compliance", """
## Goal
Finish the launch checklist for prod-us GA on 18 August.

## Accomplished
- Cluster, RDS, Redpanda, Argo apps up; smoke tests green.
- ACH rail certified with the US bank (sandbox → production cutover on 14 Aug).
- Alert routing: US-hours pages go to the new US on-call pair; EU nights still covered by EU rotation until October.
- Merchant onboarding now asks for region; existing merchants all pinned to `eu`.

## Discoveries
- Three dashboards hardcoded `region="eu"` in queries. Fixed with a template variable.
- BAI2 `2400` times broke the recon parser on the first real file.

## Next steps
- Load test prod-us at 2× forecast before the first big merchant migrates.
""", date="08-13", q=4.0)

add("session_recap", "team", "Recap: Redpanda cutover", "kafka outbox deploy", """
## Goal
Move prod-eu event streaming from MSK to Redpanda without losing or duplicating events visibly.

## Accomplished
- Mirror topics created, consumers switched to Redpanda first (reading from the mirrored offsets), then the outbox relay switched producers.
- Total relay pause: 4 minutes; backlog of 11k events drained in 40 s.
- MSK decommission scheduled for 30 Sept.

## Discoveries
- The warehouse sink consumer had `auto.offset.reset=earliest` and no committed offsets on the new cluster — it would have reprocessed 30 days. Caught in the dry run.

## Next steps
- prod-us cutover next week with the same plan.
""", date="09-10", q=4.1, rel=[("dec-redpanda", "implements", 0.8)])

add("session_recap", "personal", "Recap: KWD formatting fix", "web money", """
## Goal
Fix the KWD display bug reported by the Kuwaiti merchant.

## Accomplished
- Replaced ad hoc `/ 100` in 6 Console components with `formatMoney`.
- ESLint rule `ql/no-magic-minor-units` flags `/ 100` and `* 100` near amount-like identifiers.
- Storybook stories for JPY, EUR, KWD amounts.

## Discoveries
- The SDK's `toMajor()` helper also assumed 2 decimals. Fixed in sdk 3.2.1.

## Next steps
- none
""", date="07-22", q=3.5, rel=[("gotcha-kwd", "related", 0.9)])

add("session_recap", "team", "Recap: recon DST exceptions", "reconciliation incident", """
## Goal
Explain 143 unmatched statement lines on Monday 26 October.

## Accomplished
- All 143 were from 00:00–01:00 UK time on Sunday 25 October: the cutoff window was computed as start + 24 h on a 25-hour day.
- Fixed window computation, re-ran matching for the 25th: 143 → 0 exceptions.
- Property test over every day of 2020–2030 in Europe/London and America/New_York asserting windows tile without gaps.

## Discoveries
- The US window has the same bug waiting for 1 November.

## Next steps
- Deploy before 1 November (done on the 28th).
""", date="10-26", q=4.3, rel=[("gotcha-dst", "related", 0.9)])

add("session_recap", "team", "Recap: Console balances page rewrite", "web react performance", """
## Goal
Replace the balances page (slow, confusing for multi-currency merchants).

## Accomplished
- One aggregate endpoint `GET /v2/balances/summary` instead of N per-account requests.
- Grouped by currency, with posted / pending / available columns and a tooltip explaining each.
- Behind `console_new_balances_page`, 10% of merchants.

## Discoveries
- Finance ops use "pending" to mean holds; merchants think it means incoming. Changed the label to "Reserved".

## Next steps
- 100% after two weeks without complaints; then remove the flag.
""", date="06-25", q=3.7)

add("session_recap", "personal", None, "testing ledger", """
## Goal
Write property tests for the posting invariant.

## Accomplished
- proptest strategy that generates balanced multi-currency entries and random unbalanced mutations.
- Found that a zero-amount posting was accepted; it's now rejected (`LedgerError::ZeroPosting`).

## Next steps
- Same treatment for reversals: reversal of a reversal must equal the original.
""", date="04-08", q=3.3)

add("session_recap", "team", "Recap: game day — Postgres failover", "on-call incident postgres", """
## Goal
Practise a Multi-AZ failover under k6 load in staging.

## Accomplished
- Failover took 61 s. ledger-api recovered on its own; payouts-worker needed a restart (stuck in a sqlx acquire with no timeout).
- Set `acquire_timeout(5s)` on all pools.
- Runbook step order fixed: check Argo before scaling anything.

## Discoveries
- The on-call didn't know where the failover event shows up (RDS events, not CloudWatch alarms). Added a link to the runbook.
""", date="04-16", q=3.8)

add("session_recap", "team", "Recap: webhook delivery backlog", "webhooks performance on-call", """
## Goal
Drain a 180k webhook backlog after one large merchant's endpoint started timing out.

## Accomplished
- Confirmed per-endpoint concurrency isolated the damage: other merchants' p95 delivery latency stayed under 3 s.
- The merchant's endpoint answered after exactly 30 s; our timeout is 10 s, so every attempt failed and got scheduled again. Contacted them; their proxy was buffering.
- Added a dashboard panel: oldest undelivered event per endpoint.

## Discoveries
- Our retry schedule doesn't back off *across* events for the same endpoint — 180k events meant 180k independent schedules. Proposed an endpoint-level circuit breaker.
""", date="09-29", q=3.9)

add("session_recap", "team", "Recap: freeze prep", "release deploy on-call", """
## Goal
Get everything risky merged and deployed before the Black Friday freeze on 20 November.

## Accomplished
- Shipped recon US DST fix, rate limiter tweak, and SDK 3.4.
- Postponed the recon service split to January (proposal stays open).
- Load test at 3× last year's Black Friday peak: p99 310 ms, no errors, hot fee account lock wait at 40 ms p99.

## Discoveries
- The fee account is the single hottest row in the system; sharding fee revenue into 8 sub-accounts would remove it. Not before freeze.

## Next steps
- On-call schedule for 27 Nov – 1 Dec has two people per shift.
""", date="11-18", q=4.0, rel=[("dec-freeze", "related", 0.7)])

add("session_recap", "personal", "Recap: SDK retries", "sdk typescript", """
## Goal
Stop the SDK from retrying non-idempotent requests.

## Accomplished
- Retries only for network errors/5xx on requests that have an idempotency key; the SDK now generates one automatically for money-moving POSTs if the caller didn't.
- `maxRetries` option, default 2, with jittered backoff.

## Discoveries
- Auto-generating keys inside the retry loop would defeat the purpose — it must be generated once per logical call. Test added.
""", date="05-20", q=3.6)

add("session_recap", "team", "Recap: onboarding Luca", "onboarding docs dx", """
## Goal
Get Luca productive in his first week.

## Accomplished
- `just bootstrap` worked on his M3 after the Redpanda arm64 image fix.
- Paired on the holds expiry job; he shipped his first PR on day 3.

## Discoveries
- The glossary memories on normal balance and holds were the most useful thing he read. The architecture doc was out of date on PgBouncer.
""", date="02-27", q=3.4, rel=[("skill-setup", "related", 0.6)])

# ----------------------------------------------------------------------- notes

add("note", "personal", "Fjordbank sandbox quirks", "payouts testing", """
Fjordbank's sandbox accepts any IBAN with a valid checksum but only returns `ACSC` for amounts ending in 00 cents; `…01` gives `RJCT` with AC04, `…02` gives a return after 10 minutes. Handy for testing each path deliberately.
""", q=3.9)

add("note", "team", "Staging merchants", "testing onboarding", """
Useful staging merchants: `dev` (small, EUR only), `loadtest` (500 accounts, EUR/USD/GBP), `kwd-demo` (KWD + JPY, for exponent bugs), `returns` (every payout gets returned after 5 minutes via the rail mock).
""", q=3.7)

add("note", "personal", None, "postgres performance", """
Query to see who is waiting on which balance row lock:

`SELECT pid, wait_event_type, query FROM pg_stat_activity WHERE wait_event_type = 'Lock';` then `SELECT * FROM pg_locks WHERE NOT granted;` joined on pid. Hot row is almost always the fee revenue account.
""", q=3.5)

add("note", "team", "Who owns what", "onboarding docs", """
ledger-core / ledger-api: Priya, Aiko. payouts-worker and rails: Aiko. recon: Dele. Console: Jonas. SDK: Jonas + Luca. Infra, Redpanda, Argo, on-call tooling: Marek. Security reviews: Tomás. Product: Sam. Finance ops contact: Ruth.
""", k="note-owners", q=4.0)

add("note", "personal", "psql shortcuts", "postgres tooling", """
`\\x auto` for wide rows, `\\timing on`, and `SET statement_timeout = '10s';` first thing on any prod replica session. `\\pset null '∅'` so NULL and empty string look different.
""", q=3.0)

add("note", "team", "Merchant rollout list for sepa_instant", "payouts feature-flags", """
Pilot merchants for `payouts_sepa_instant`: the three marketplace merchants who asked for it in Q2, plus our own `treasury-test` merchant. Instant payouts cost us €0.20 more each; Sam wants pricing decided before widening.
""", q=3.1)

add("note", "personal", None, "rust tooling dx", """
cargo-watch replacement: `bacon` with the `nextest` job is much nicer — `bacon nextest -- -p ledger-core`. Keeps the failing test list on screen.
""", q=2.8)

add("note", "team", "Fee schedule basics", "money ledger", """
Standard pricing (for test data, not contractual): transfers free, SEPA payout €0.25, SEPA Instant €0.45, ACH $0.30, FPS £0.20. Fees are their own journal entry (`kind = fee`) posted right after the payout entry, not netted into it.
""", q=3.3)

add("note", "personal", "Reading list", "docs", """
- Designing Data-Intensive Applications, ch. 7 again (isolation levels) — after the SERIALIZABLE experiment.
- Modern Treasury's ledger blog posts on double-entry for engineers.
- The PgBouncer 1.21 release notes on prepared statements.
""", q=2.4)

add("note", "team", None, "api sdk", """
Merchants on the oldest supported API version (2026-01-15) per last week's stats: 41 of 312 live keys. The version sunset email goes out 60 days before we drop it.
""", q=2.9)

add("note", "personal", "Grafana panels I keep open on-call", "on-call observability", """
SLO burn (transfers, payouts), outbox lag per region, webhook oldest undelivered, Postgres lock waits, payouts-worker batch age, recon exceptions count. Bookmark folder "on-call" in Grafana has all six.
""", q=3.6)

add("note", "team", "Bank cut-off times", "payouts", """
Fjordbank SEPA CT: files received before 15:30 CET settle same day. SEPA Instant: 24/7. US bank ACH same-day windows: 10:30 and 14:45 ET submission deadlines. FPS: 24/7 but the provider has a maintenance window Sundays 01:00–03:00 UK.
""", q=4.0)

add("note", "personal", None, "web typescript", """
`pnpm why <pkg>` in console is the fastest way to find which dependency pulls an old copy of something. Found two versions of date-fns that way.
""", q=2.5)

add("note", "team", "Test card and account numbers", "testing payouts", """
Only use documented test IBANs in fixtures (`DE89 3704 0044 0532 0130 00` style examples from the IBAN registry, or our generated ones with the `QLTEST` bank code). Real customer numbers in a fixture is a reportable incident.
""", q=3.8)

add("note", "shared", "Support macros for webhook questions", "webhooks docs", """
Support has macros for: invalid signature (raw body), missing events (check endpoint subscriptions + disabled endpoints), duplicate events (at-least-once, dedupe on `id`), and out-of-order events (use `created` + fetch the object). Engineering link for each is the matching docs page.
""", q=3.4)

add("note", "personal", "Idea: fee account sharding", "ledger performance", """
The fee revenue account is the hottest lock in the system. Idea: 8 sub-accounts `revenue:fees:payout:0..7`, pick one by hash of the entry id, roll up in reporting. Balance reads for that account become a SUM over 8 rows, which is fine. Needs finance ops OK for the chart of accounts.
""", q=3.2)

add("note", "team", None, "deploy k8s", """
Argo CD UI: `argocd.prod-eu.internal.quaylight.dev` and `.prod-us.`. SSO via staff Keycloak; read-only for everyone except `sre`.
""", q=2.7)

add("note", "personal", "Things Ruth asked for", "reconciliation web", """
- Export of exceptions with the raw statement line attached.
- A way to mark an exception "waiting on bank" so it stops showing as aging.
- Bulk resolve for the 0.01 rounding differences from the old FX provider.
""", q=3.0)

add("note", "team", "How we name Grafana dashboards", "observability docs", """
`<service> / <topic>`: "ledger-api / overview", "payouts-worker / rails", "recon / daily run". One overview per service with the golden signals; everything else is linked from it.
""", q=2.6)

add("note", "personal", None, "dx", """
Note to self: the `just` recipes print the underlying commands with `just --dry-run <recipe>`. Useful when a recipe fails and I want to run one step by hand.
""", q=2.2)

add("note", "shared", "Public status page components", "incident on-call", """
Components on status.quaylight.dev: API (EU), API (US), Console, Payouts – SEPA, Payouts – ACH, Payouts – FPS, Webhooks. Incident commander updates it within 15 minutes of declaring an incident that merchants can see.
""", q=3.5)

add("note", "team", "Local Redpanda console", "kafka dx", """
`just bootstrap` also starts Redpanda Console on `localhost:8089`. Browse topics, see consumer group lag, and produce test messages without writing a producer.
""", q=2.9)

# ----------------------------------------------------------------------- todos

add("todo", "personal", None, "dependencies sqlx", """
Bump sqlx to 0.8.3 and rerun `cargo sqlx prepare` — the 0.8.2 → 0.8.3 changelog mentions a fix for `Option<Json<T>>` decoding we work around in `holds.rs`.
""", q=2.5)

add("todo", "team", "Remove console_new_balances_page flag", "feature-flags web", """
Flag has been 100% in both regions since 14 July. Delete the old `BalancesPage` component, the flag check, and the flag in Unleash.
""", q=2.8, status="stale")

add("todo", "personal", None, "ledger testing", """
- [x] proptest for posting invariant
- [x] reversal of reversal equals original
- [ ] proptest for FX conversion rounding (half-even, exponent 0 and 3)
- [ ] shrink the generator output, failures are unreadable
""", q=2.9)

add("todo", "team", "Endpoint-level circuit breaker for webhooks", "webhooks performance", """
After the September backlog: when an endpoint fails N consecutive deliveries, pause new attempts for that endpoint for a cooling period instead of letting every event run its own retry schedule. Needs a design note first.
""", q=3.3)

add("todo", "personal", None, "docs onboarding", """
Update the architecture memory's PgBouncer section — it still says session mode.
""", q=2.0)

add("todo", "team", "Backup restore test evidence", "compliance postgres", """
SOC 2 follow-up: run a full restore of prod-eu's latest snapshot into an isolated account, run the balance check query, record timings and screenshots in `compliance/restore-tests/2026-Q3.md`. Quarterly from now on.
""", q=3.6)

add("todo", "personal", None, "web", """
Console: the payouts table loses its filters on back navigation. Put filters in the URL search params (TanStack Router makes this easy).
""", q=2.7)

add("todo", "team", "US DST fix before 1 November", "reconciliation", """
Recon window for America/New_York has the same start + 24h bug as London. Must deploy before Sunday 1 November.
""", q=3.9, status="validated", date="10-27")

add("todo", "personal", None, "sdk release", """
SDK: publish 3.4.0 with provenance (`npm publish --provenance`) — the release workflow has the id-token permission now.
""", q=2.3)

add("todo", "team", "Rotate Fjordbank client certificate", "payouts security", """
mTLS client cert for Fjordbank expires 2026-12-03. New CSR must be submitted through their portal at least 10 business days before. Calendar reminder set for 10 November; Marek has portal access.
""", q=3.8)

add("todo", "personal", None, "tooling", """
Try `cargo-machete` to find unused dependencies in the workspace.
""", q=1.9)

add("todo", "team", None, "observability alerts", """
Alert on outbox lag > 60 s for 5 minutes (warning) and > 5 min (page). Right now we only notice when webhooks are late.
""", q=3.2)

add("todo", "personal", "Write up the hot-row analysis", "ledger performance docs", """
Turn the fee-account lock-wait numbers from the November load test into a proper decision proposal (sharded fee accounts) for January.
""", q=2.6)

add("todo", "team", None, "api docs", """
Docs: the idempotency page doesn't say that keys are scoped per API key, not per merchant. Two merchants with two keys each got confused.
""", q=2.8)

add("todo", "personal", None, "ci", """
Look at why the Playwright job downloads browsers every run despite the cache step — cache key includes the lockfile hash of the wrong package.
""", q=2.4)

add("todo", "team", "Drop the oldest API version", "api release sdk", """
`2026-01-15` sunset: email merchants 60 days ahead, add `Sunset` header on responses now, remove the version module after the date. Check the 41 keys still on it.
""", q=3.0)

add("todo", "personal", None, "security", """
Ask Tomás whether Console session cookies need `__Host-` prefix now that auth moved to the `auth.` subdomain.
""", q=2.2)

add("todo", "team", "Recon exceptions: 'waiting on bank' state", "reconciliation web", """
Add a resolution state that pauses aging for an exception with a required note and a follow-up date. Ruth's top request.
""", q=3.1)

add("todo", "personal", None, "dependencies", """
Renovate PR for axum 0.8 → check the `Path` extractor syntax change (`/:id` → `/{id}`) across all routers before merging.
""", q=3.4)

add("todo", "team", None, "k8s deploy", """
Karpenter consolidation keeps evicting payouts-worker mid-batch. Add a PodDisruptionBudget and the `karpenter.sh/do-not-disrupt` annotation during submission.
""", q=3.5)

add("todo", "personal", None, "testing", """
Delete the `#[ignore]`d `webhook_ordering_is_preserved` test — ordering isn't guaranteed by design, the test is wrong, not flaky.
""", q=2.6)

add("todo", "team", "Game day Q4", "on-call incident", """
Scenarios proposed: Redpanda broker loss during the 06:00 recon ingest; expired bank mTLS cert; Redis down (rate limiter fail-open). Date TBD, not during freeze.
""", q=2.9)

add("todo", "personal", None, "web", """
check Safari date input on the export dialog
""", q=1.8)

add("todo", "team", None, "docs", """
Write the runbook for `WebhookEndpointDisabledSpike`, the alert has no runbook and the lint only checks the URL exists, not that the page is useful.
""", q=2.7)

add("todo", "personal", "Clean up old branches", "tooling", """
`git branch --merged main | grep -v main | xargs git branch -d` and delete the `larch/*` remote branches after checking with Priya.
""", q=1.7)

# ---------------------------------------------------------------------- events

add("event", "team", "Project Larch kickoff", "api release", """
12 January: kickoff for the v2 API (transfers, holds, dated versions). Target: GA on 1 April. Team: Priya (lead), Aiko, Jonas, Marek part-time. Sam owns scope; anything not in the one-pager is out.
""", date="01-12", q=3.2)

add("event", "team", "Postgres 16 upgrade in prod-eu", "postgres deploy", """
3 February, 06:00–06:20 UTC. Blue/green switchover, 41 s of write unavailability, no failed transfers (clients retried with idempotency keys). Warehouse replication re-seeded by 09:00.
""", date="02-03", q=3.6)

add("event", "team", "Luca Bianchi joined", "onboarding", """
Luca started on 24 February on the API team. Buddy: Aiko. First tasks: holds expiry job, then SDK retry work.
""", date="02-24", q=2.8)

add("event", "team", "Staging outage", "incident k8s postgres", """
10 March, 14:05–15:50 CET. Postgres slowness (autovacuum on `postings` with an undersized instance) made all readiness probes fail; every service lost its endpoints. Aggravated by a manual `kubectl edit` that Argo then didn't revert.
""", date="03-10", q=3.5, rel=[("gotcha-readiness", "related", 0.8)])

add("event", "team", "API version 2026-04-01 released", "api release sdk", """
1 April: v2 transfers and holds GA, dated versioning live, SDK 3.0 published. First dated version is `2026-04-01`; earlier keys pinned to `2026-01-15`.
""", date="04-01", q=3.9)

add("event", "team", "INC-0419: duplicate SEPA payouts", "incident payouts", """
14 May 08:40 CET. 37 payouts submitted twice after a bank 503 + retry. Severity 1. Payouts paused 09:05, resumed 16:30 with the fix. €48,300 at risk; 35 of 37 recalled successfully.
""", k="event-inc0419", date="05-14", q=4.4, feel={"fear": 0.85, "urgency": 0.95, "arousal": 0.9})

add("event", "team", "SOC 2 Type II fieldwork", "compliance security", """
8–19 June. Auditor interviews with Priya, Marek, Tomás. Evidence requests tracked in the compliance board; engineering closed all 23 by 26 June.
""", date="06-08", q=3.0)

add("event", "team", None, "ci", """
2 July: CI times tripled overnight (sccache rate limited on the GHA cache backend). Fixed the same day by moving to S3.
""", date="07-02", q=2.7)

add("event", "team", "prod-us GA", "deploy release", """
18 August: prod-us open to new merchants. First live ACH payout batch 19 August 14:45 ET, 12 payouts, all settled.
""", date="08-18", q=3.8)

add("event", "team", "Redpanda cutover prod-eu", "kafka deploy", """
9 September 07:00 UTC. Consumers moved, then producers; 4-minute relay pause. No duplicate webhooks reported. prod-us followed on 16 September.
""", date="09-09", q=3.4)

add("event", "team", "Q4 game day", "on-call incident", """
15 October. Scenarios: Redpanda broker loss (fine), bank mTLS cert expiry (runbook missing a step — fixed), Redis down (rate limiter failed open as designed, but nobody was paged; added a warning alert).
""", date="10-15", q=3.3)

add("event", "team", None, "reconciliation incident", """
26 October: 143 recon exceptions after the UK DST change. Root cause found and fixed the same day; no money affected, only matching.
""", date="10-26", q=3.1, rel=[("gotcha-dst", "related", 0.8)])

add("event", "team", "Black Friday freeze starts", "release deploy", """
Deploy freeze from 20 November 00:00 CET to 2 December. Exceptions need Marek or Priya. Double on-call from 27 November.
""", date="11-20", q=3.0)

add("event", "personal", None, "on-call", """
First on-call shift done (week of 13 April). Two pages, both `WebhookDeliveryLatencyHigh` from the same merchant endpoint. Learned more about the dispatcher in that week than in a month of reading code.
""", date="04-20", q=3.2)

add("event", "team", "Merchant escalation: missing webhooks", "webhooks incident", """
29 September: large marketplace merchant escalated missing `payout.paid` webhooks. Nothing was missing — 180k events were queued behind their own slow endpoint. Explained, they fixed their proxy, backlog drained in 3 hours.
""", date="09-29", q=3.5)

add("event", "team", None, "security", """
5 August: GitHub secret scanning reported a `ql_test_` key in a merchant's public repo. Test keys can't move real money, but we revoked it and emailed them per policy.
""", date="08-05", q=2.9)

add("event", "team", "MSK decommissioned", "kafka deploy", """
30 September: both MSK clusters deleted after final snapshot. Monthly infra bill down ~28%.
""", date="09-30", q=2.6)

add("event", "team", "KWD bug report", "web money", """
21 July: merchant in Kuwait reported balances 10× too high in the Console. Fixed and deployed 22 July.
""", date="07-21", q=2.8, rel=[("gotcha-kwd", "related", 0.9)])

# ---------------------------------------------------------------------- people

add("person", "team", "Priya Raman", "ledger onboarding", """
Tech lead, owns ledger-core and ledger-api. Final say on anything touching postings, balances or migrations on ledger tables. Prefers a written proposal (one page, with the failure modes) over a meeting. Based in Berlin, CET.
""", k="person-priya", q=4.0)

add("person", "team", "Marek Nowak", "on-call deploy k8s", """
SRE. Owns infra, Argo CD, Redpanda, on-call tooling and the freeze exceptions. Ask him before any change to probes, resource limits or PDBs. Warsaw, CET. Usually online from 07:00.
""", q=3.9)

add("person", "team", "Jonas Albrecht", "web sdk", """
Frontend lead: Console and the TypeScript SDK. Strong opinions on query keys and form state (rightly). Reviews every change under `console/src/api/`.
""", q=3.5)

add("person", "team", "Aiko Tanaka", "payouts ledger", """
Payouts and rails. Knows every bank's file format and return code by heart. Was incident commander for INC-0419. Tokyo-born, lives in Amsterdam; mentor for Luca.
""", q=3.8)

add("person", "team", "Dele Okafor", "reconciliation", """
Owns recon and the warehouse export. Works closely with Ruth in finance ops. If an exception count looks weird, Dele has probably already seen it.
""", q=3.4)

add("person", "team", "Sam Whitfield", "release", """
Product manager for the platform. Owns scope and merchant communication (version sunsets, incidents on the status page with the IC). Agreed to the error-budget policy.
""", q=3.1)

add("person", "team", "Tomás Ferreira", "security compliance auth", """
Security engineer, shared with two other teams. Must review: auth changes, new secrets handling, anything exposing new data to merchants, and new third-party services. Ran the SOC 2 engineering workstream.
""", q=3.7)

add("person", "team", "Hana Kim", "testing web", """
QA engineer; owns the Playwright suite and the flaky-test dashboard. Has a list of every test that has ever been quarantined and why.
""", q=3.3)

add("person", "shared", "Ruth Mbeki", "reconciliation compliance", """
Head of finance operations. Primary stakeholder for recon, exports and the chart of accounts. Closes the books on the 5th business day; don't deploy recon changes in the two days before.
""", k="person-ruth", q=3.9)

add("person", "team", "Luca Bianchi", "api sdk onboarding", """
Joined February, API team. Did the holds expiry job and the SDK retry rework. Interested in the performance work on hot accounts.
""", q=3.0)

add("person", "shared", "Fjordbank integration contact", "payouts", """
Our technical contact at Fjordbank is their "corporate API" team, reached through the partner portal ticket queue (not email). Response within one business day; for production incidents call the number in the runbook `fjordbank-outage.md`.
""", q=3.2)

add("person", "personal", None, "on-call", """
Marek's rule of thumb when paged: "first make it stop getting worse, then understand it, then fix it." Worth remembering at 3am.
""", q=3.6)

# --------------------------------------------------------------------- journal

add("journal", "personal", None, "ledger postgres", """
Spent the whole afternoon convinced the deadlock was in sqlx's pool. It was our own lock order. Every time I think a bug is in a library it's in our code; need to start from that assumption.
""", date="02-10", q=3.0)

add("journal", "personal", "After INC-0419", "incident payouts", """
Hard day. The test that caught this race had been flaky for weeks and we'd turned on retries to make CI green. Nobody did anything wrong in isolation; the process let a signal get muted. The postmortem was blameless and it still felt personal. Writing this down so future me remembers why I will argue about retries.
""", date="05-16", q=4.0, feel={"sadness": 0.6, "guilt": 0.55, "valence": -0.55})

add("journal", "personal", None, "web", """
Finance ops demo went well. Ruth said the new balances page was the first time she could explain "available" to a merchant without a whiteboard. Small thing, made the week.
""", date="06-30", q=3.3, feel={"happiness": 0.75, "pride": 0.6, "valence": 0.7})

add("journal", "personal", None, "on-call", """
Paged at 03:12 for LedgerImbalance. It was the backfill again. Silenced, went back to sleep, couldn't. The alert was technically right and practically useless; fixing the check tomorrow.
""", date="04-29", q=2.9, feel={"anger": 0.4, "valence": -0.4})

add("journal", "personal", "Why I like the reversal rule", "ledger compliance", """
Explained reversal entries to the auditor today. The best part of "never UPDATE" is that every question of the form "what did the ledger say on date X?" has an answer without a separate history table. Immutability pays for itself the first time someone asks.
""", date="06-11", q=3.5)

add("journal", "personal", None, "ci", """
CI at 26 minutes makes everyone batch changes into huge PRs. Slow feedback isn't just annoying, it changes behaviour. Glad it's back to 8.
""", date="07-03", q=2.7)

add("journal", "personal", None, "release", """
Shipped v2. Three months of Larch. The dated-versioning layer is the piece of code I'm proudest of this year and nobody outside the team will ever notice it, which is the point.
""", date="04-02", q=3.4, feel={"pride": 0.8, "happiness": 0.7, "valence": 0.75})

add("journal", "personal", None, "reconciliation", """
The DST bug is such a classic. I've written "never add 24 hours to get tomorrow" in three codebases now and I still didn't check recon's window code when I reviewed it.
""", date="10-27", q=3.1, feel={"embarrassment": 0.5})

add("journal", "personal", "Thinking about hot accounts", "ledger performance", """
Every ledger eventually has one account everyone writes to. Ours is fees. Sharding it is easy; explaining to finance why "the fee account" is now eight accounts is the real work.
""", date="11-19", q=2.8)

add("journal", "personal", None, "onboarding", """
Luca asked why merchant balances are credited when they go up. Realised I'd been explaining normal balances badly for a year — leading with the rule instead of "it's money we owe them".
""", date="03-02", q=3.0)

add("journal", "personal", None, "kafka", """
The Redpanda cutover was boring, which is the highest compliment a migration can get. Dry run found the only real problem.
""", date="09-11", q=3.2)

add("journal", "personal", None, "docs payouts", """
Retro: we're good at writing things down after incidents and bad at reading them before starting work. Started asking agents to search memories before touching payouts code.
""", date="08-28", q=3.3)

add("journal", "personal", None, "web testing", """
Spent two hours on a Playwright flake that was an animation. Two hours. reducedMotion now, forever.
""", date="05-07", q=2.5, feel={"anger": 0.35, "humor": 0.4})

add("journal", "personal", None, "sdk", """
The BigInt serialisation error is the kind of thing TypeScript's types will never warn you about. `bigint` is a perfectly valid type until the moment you try to send it anywhere.
""", q=2.6)

add("journal", "personal", "End of November", "release on-call", """
Freeze is on. Load test numbers look good. The team is tired but the on-call rota is double-staffed and the runbooks are better than they were in spring. Next year: hot accounts, recon split, fewer flags.
""", date="11-21", q=3.4, feel={"narrative_importance": 0.7})

# ------------------------------------------- older versions, proposals, oddities

add("convention", "api", "Amounts as JSON numbers in major units (v1)", "api money api-design", """
v1 API convention: amounts are JSON numbers in major units with two decimals (`"amount": 1250.00`).

Deprecated with v2 — lost precision in JS clients and was wrong for every currency whose exponent isn't 2. Only the frozen v1 endpoints still behave like this.
""", k="conv-v1-numbers", status="deprecated", date="01-05", q=2.1)

add("convention", "team", "Run cargo test --workspace before pushing", "testing dx", """
Before pushing, run `cargo test --workspace` and the console tests. Superseded by the `just check` recipe, which also runs fmt, clippy and the typechecks that caught most of our CI failures.
""", k="conv-old-check", status="deprecated", date="01-07", q=2.4)

add("decision", "infra", "Head sampling at 5% in every service", "observability", """
Services sample 5% of traces at the root span (parent-based). Cheap and simple.

Replaced by tail sampling in the collector: during INC-0419 none of the 37 duplicate submissions had a sampled trace.
""", k="dec-head-sampling", status="deprecated", date="01-15", q=2.2)

add("decision", "infra", "Amazon MSK for event streaming", "kafka deploy", """
Use Amazon MSK (2 brokers per AZ) for Kafka in both regions, so we don't run brokers ourselves in year one.

No longer current: replaced by self-hosted Redpanda in September for cost.
""", k="dec-msk", status="stale", date="01-08", q=2.7)

add("decision", "team", "CockroachDB for a global ledger", "ledger postgres deploy", """
Proposal: run the ledger on CockroachDB across regions so merchants could hold balances in both EU and US.

Rejected: data residency requires EU merchant data to stay in the EU, serializable-only transactions would bring back the retry storm we saw with SERIALIZABLE on Postgres, and nobody on the team has operated it.
""", status="rejected", date="04-21", q=2.8, rel=[("dec-regions", "contradicts", 0.8), ("att-serializable", "related", 0.5)])

add("decision", "ledger", "Shard the fee revenue account", "ledger performance", """
Proposal: split `revenue:fees:*` into 8 sub-accounts selected by hash of the journal entry id, to remove the single hottest row lock. Reporting rolls them up; balance reads become a sum over 8 rows.

Needs: finance ops sign-off on chart of accounts change (Ruth), migration plan for historical entries (none — old entries stay on the old account, which becomes read-only).
""", k="dec-fee-shard", status="proposed", date="11-24", q=3.4)

add("decision", "webhooks", "Per-endpoint circuit breaker", "webhooks performance", """
Proposal: after 20 consecutive failures for an endpoint, stop attempting deliveries for 10 minutes, then send a single probe delivery; resume normal delivery on success. Events keep their retry budgets but the clock pauses while the breaker is open.
""", status="proposed", date="10-05", q=3.1)

add("gotcha", "infra", "PgBouncer 1.18 has no prepared statement support", "postgres sqlx", """
Older PgBouncer versions don't track prepared statements at all in transaction mode; sqlx's statement cache breaks. Only relevant if you're on an old image — we're on 1.22 everywhere since March.
""", k="gotcha-pgb-old", status="stale", date="01-18", q=2.5)

add("convention", "team", "Search memories before editing payouts code", "payouts dx", """
Agents: before changing anything in `crates/payouts-worker/`, search memories for the area you're touching (`payouts`, the rail name, `idempotency`). Most of our payout bugs were already written down somewhere.
""", status="proposed", date="08-29", q=3.6)

add("glossary", "team", "Incident commander", "incident on-call", """
The one person running an incident: decides, delegates, keeps the timeline, and updates the status page with Sam. Not necessarily the person fixing it. Any on-call can declare themselves IC; hand over explicitly.
""", q=3.5)

add("attempt", "recon", "Auto-resolving sub-cent FX differences", "reconciliation fx", """
**Tried:** automatically resolving recon exceptions where the difference was ≤ 1 minor unit and the line was an FX conversion, by posting a rounding adjustment.

**Why it was rejected:** finance ops want to see every adjustment that touches the P&L, however small, and the auditor agreed. Automation is fine for *suggesting* the adjustment.

**Instead:** bulk-resolve action in the Console with a prefilled reason.
""", status="rejected", q=3.0)

add("skill", "recon", "Skill: triage a recon exception", "reconciliation", """
1. Open the exception, read the raw statement line (not just our parsed fields).
2. Search the ledger by amount ± 0 and value date ± 2 business days.
3. Common causes: bank merged two payouts into one line (batch booking), reference truncated, return of a payout from last month.
4. Resolve with the matched item or an adjustment; both need a reason. Adjustments over €500 need Ruth.
""", status="draft", q=3.4)

add("note", "shared", "Webhook source IPs", "webhooks security docs", """
Webhooks are sent from fixed egress IPs per region (NAT gateways). The list is published at `https://docs.quaylight.dev/webhooks/ips.json`; merchants who allowlist IPs must use that file, not a copy — the US list grew when prod-us launched.
""", q=3.2)

add("gotcha", "web", "Unleash frontend proxy caches flags for 15 s", "feature-flags web", """
Flipping a flag in Unleash takes up to 15 s to reach the Console (proxy refresh interval) plus whatever the SDK's own refresh is (30 s). When testing a flag flip in staging, wait a minute or hard-refresh twice before deciding it didn't work.
""", q=3.1)

add("gotcha", "api", "utoipa and #[serde(flatten)]", "api docs sdk", """
utoipa renders `#[serde(flatten)]` fields as `allOf`, and openapi-typescript turns that into an intersection type that made `metadata` required in the SDK. We stopped flattening in response types; explicit fields are also easier to read.
""", q=3.0)

add("convention", "team", "Log levels", "observability rust", """
- `error`: someone should look at this (and it probably pages via an alert on the rate).
- `warn`: degraded but handled (retry succeeded, fallback used).
- `info`: state changes of business objects (payout submitted, entry posted), one line each.
- `debug`: everything else; off in prod, can be turned on per module with `RUST_LOG` via the flag `debug_logging_<service>`.
""", q=3.7)

add("decision", "web", "Console is English-only for now", "web docs", """
No i18n framework in the Console until a second language is actually needed. Copy lives in components; number and date formatting already use `Intl` with the user's locale. Revisit if we sign a merchant that requires German UI for their finance team.
""", q=2.6, status="validated")

add("gotcha", "ledger", "Hold expiry job must use the injected clock", "ledger testing", """
The hold expiry job used `now()` in SQL (`WHERE expires_at < now()`) while the Rust code used the injected clock. In tests with `FixedClock` in the past, holds never expired. Pass the time as a parameter: `WHERE expires_at < $1`.
""", q=3.6, rel=[("dec-holds", "related", 0.5)])

add("attempt", "infra", "LISTEN/NOTIFY to wake the outbox relay", "outbox postgres performance", """
**Tried:** `NOTIFY outbox` from a trigger so the relay wakes immediately instead of polling every 200 ms.

**Why it failed:** through PgBouncer in transaction mode `LISTEN` doesn't stick to a session; the relay silently stopped receiving notifications after reconnects. A direct connection for the listener worked but added a connection per relay that bypassed the pooler.

**Instead:** 200 ms polling with an adaptive backoff to 1 s when idle. Lag p99 is 350 ms, good enough.
""", q=3.5, rel=[("arch-outbox", "related", 0.6)])

add("note", "personal", "test memory please ignore", "tooling", """
test test — checking that the remember tool saves with scope personal
""", deleted="created by an agent while testing the remember tool", q=1.0, nofeel=True)

add("note", "team", "Staging read-only DB", "postgres", """
Staging read-only connection: `postgres://readonly:[REDACTED]@staging-ro.internal:6432/ledger`. Password removed from this memory; get it from 1Password "staging-ro".
""", deleted="contained a credential before redaction; credential rotated", q=1.5)

add("gotcha", "ledger", "sqlx can't bind arrays", "sqlx postgres", """
`query!` doesn't support binding a Rust slice, so lock queries have to be built with one placeholder per account.
""", deleted="wrong: `= ANY($1)` with `&[i64]` works fine", status="rejected", q=1.4)

add("todo", "personal", None, "web", """
Fix the date picker in the export dialog (wrong week start for US users).
""", deleted="done; tracked in the Console backlog instead", q=2.0)

# ------------------------------------------------------------ long documents

add("architecture", "ledger", "Ledger invariants and where each one is enforced", "ledger postgres compliance docs", """
This is the list we walk through with auditors and with every new engineer who touches `ledger-core`. If you add an invariant, add it here and say where it is enforced; "by convention" is not an enforcement point.

## 1. Entries balance per currency
- **Rust:** `JournalEntry::validate()` rejects entries with fewer than two postings, zero-amount postings, or a non-zero sum per currency.
- **Postgres:** deferred constraint trigger `postings_balance_check` re-checks at COMMIT.
- **Monitoring:** `LedgerImbalance` alert runs the check query over entries older than 5 minutes.

## 2. Posted history is immutable
- **Postgres:** the `ledger_app` role has no `UPDATE`/`DELETE` on `journal_entries` and `postings`.
- **Rust:** there is no update API in ledger-core; corrections are `reverse(entry_id)` followed by a new entry.
- **Audit:** monthly export of role grants to the compliance bucket.

## 3. Each money movement happens at most once
- **API:** `Idempotency-Key` required on money-moving POSTs.
- **Postgres:** unique index on `journal_entries.idempotency_ref`; payout submission claims batches with a conditional `UPDATE … WHERE state = 'ready'`.
- **Rails:** retries reuse the stored file byte for byte, so the bank's own duplicate check works (INC-0419).

## 4. Available balance never goes negative (for merchant balances)
- **Rust:** balance rows are locked in ascending `account_id` order and `available >= amount` is checked under the lock.
- **Postgres:** `CHECK (posted_minor - held_minor >= 0)` on `account_balances` for liability accounts flagged `no_overdraft`.

## 5. One currency per account
- **Postgres:** `postings.currency` must equal `accounts.currency` (composite foreign key `(account_id, currency)`).

## 6. Closed periods stay closed
- **Rust:** `effective_at` in a closed month is rejected with `LedgerError::PeriodClosed`.
- **Postgres:** trigger on insert checks `accounting_periods.closed_at`.

## What is *not* an invariant
Ordering of events on Redpanda, delivery order of webhooks, and the order of statement lines from banks. Code that assumes any of these will break.
""", k="arch-invariants", q=4.8, status="validated", date="06-15",
    rel=[("dec-invariant", "implements", 0.9), ("dec-reversal", "related", 0.8), ("arch-idem", "related", 0.6)])

add("skill", "team", "Skill: your first on-call week", "on-call alerts onboarding incident", """
A practical guide written after several people's first rotations. Read it the Friday before your first shift.

## Before the shift
- Check you can log in to PagerDuty, Grafana, Argo CD (read-only is fine) and the AWS console for both regions. Do it *before* Monday, not at 3am.
- Open the "on-call" Grafana folder and pin the six panels: SLO burn, outbox lag, webhook oldest undelivered, Postgres lock waits, payouts batch age, recon exceptions.
- Read the last two weeks of the #oncall handoff thread.

## When you get paged
1. Acknowledge within 5 minutes, even if you don't know what it is yet.
2. Open the runbook linked from the alert. Follow "First five minutes" literally.
3. Make it stop getting worse first: scale payouts-worker to 0, turn a flag off, pause a consumer. Understanding comes after.
4. If merchants can notice, declare an incident in #incidents and become IC or hand IC to someone explicitly.
5. Write a timeline as you go — timestamps and what you saw, not conclusions.

## Things that page but are usually fine
- `LedgerImbalance` during a known backfill (check the `backfill_in_progress` label).
- `WebhookDeliveryLatencyHigh` for a single endpoint — one merchant's slow server, isolated by design.
- `ReconExceptionsHigh` on the first business day after a holiday.

## Things that look fine but are not
- Outbox lag growing slowly with no errors: the relay may have lost its advisory lock to a zombie pod.
- `payouts_submitted_total` flat during banking hours: the worker may be stuck on an acquire.

## After the shift
Post the handoff note (pages, mutes, open issues, runbooks that were wrong). Fix at least one runbook you found lacking.
""", k="skill-oncall", q=4.6, status="validated", date="05-04",
    rel=[("skill-imbalance", "related", 0.7)])

# ------------------------------------------- accidents: pasted terminal output

add("gotcha", "ledger", "clippy::needless_borrow after the toolchain bump", "rust tooling ci", """
After bumping to the new stable, clippy fails in ledger-core. Output as pasted from the terminal:

\x1b[0m\x1b[1m\x1b[33mwarning\x1b[0m\x1b[0m\x1b[1m: the borrowed expression implements the required traits\x1b[0m
\x1b[0m   \x1b[0m\x1b[0m\x1b[1m\x1b[38;5;12m--> \x1b[0m\x1b[0mcrates/ledger-core/src/posting/mod.rs:214:31\x1b[0m
\x1b[0m\x1b[1m\x1b[31merror\x1b[0m\x1b[1m: could not compile `ledger-core` (lib) due to 3 previous errors\x1b[0m

Fix: remove the `&` in the three `lock_balances(&ids)` calls; `ids` is already a slice.
""", q=2.9, rel=[("conv-check", "related", 0.3)])

add("attempt", "web", "pnpm install with an outdated lockfile", "pnpm ci web", """
**Tried:** adding `@tanstack/react-table` to console by editing package.json by hand and pushing.

**Why it failed:** CI runs `pnpm install --frozen-lockfile`:

\x1b[31m ERR_PNPM_OUTDATED_LOCKFILE \x1b[39m Cannot install with "frozen-lockfile" because pnpm-lock.yaml is not up to date with console/package.json\x07

**Instead:** always `pnpm add` from the package directory so the lockfile is updated in the same commit.
""", q=2.6)

add("note", "personal", "\x1b[1mnextest run\x1b[0m summary before the payouts fix", "flaky-test testing", """
Pasted from my terminal while chasing the batch claim race:

\r\x1b[2K    Starting 412 tests across 9 binaries
\r\x1b[2K        \x1b[32mPASS\x1b[0m [   0.412s] payouts-worker batch::tests::claims_ready_batch
\r\x1b[2K        \x1b[31mFAIL\x1b[0m [   1.207s] payouts-worker batch::tests::payout_batch_submits_once
\r\x1b[2K     Summary [  48.310s] 412 tests run: 411 passed, \x1b[31m1 failed\x1b[0m, 3 skipped

Fails about 1 in 30 runs locally.
""", date="05-12", q=2.7, rel=[("gotcha-retries", "related", 0.7)])

# Relationships added on top of the ones declared inline: (source key, target key, kind, strength)
EXTRA_RELS = [
    ("dec-fx", "dec-decimal-old", "supersedes", 0.9),
    ("conv-check", "conv-old-check", "supersedes", 0.9),
    ("dec-string-amounts", "conv-v1-numbers", "supersedes", 0.85),
    ("dec-tail", "dec-head-sampling", "supersedes", 0.9),
    ("dec-redpanda", "dec-msk", "supersedes", 0.95),
    ("gotcha-pgbouncer", "gotcha-pgb-old", "supersedes", 0.6),
    ("dec-fee-shard", "dec-balances", "depends_on", 0.6),
    ("skill-imbalance", "arch-model", "depends_on", None),
    ("conv-redact", "person-ruth", "related", 0.3),
]

# Two relationships whose targets are deliberately absent from the file.
MISSING_RELS = [
    ("conv-money", "2026-01-11-decision-rust-decimal-amounts", "related", 0.4),
    ("arch-model", "mem-0412", "depends_on", None),
]

# ---------------------------------------------------------------------------
# Metadata generation
# ---------------------------------------------------------------------------

UTC = timezone.utc
START = datetime(2026, 1, 5, tzinfo=UTC)
LAST_CREATE = datetime(2026, 11, 26, 18, 0, tzinfo=UTC)
NOW = datetime(2026, 11, 30, 17, 45, tzinfo=UTC)

HIVE_TYPES = ["convention", "decision", "gotcha", "architecture", "glossary", "skill",
              "attempt", "session_recap"]
REMEMBER_TYPES = ["note", "todo", "event", "person", "journal"]

STATUS_DIST = {
    "convention": {"validated": 60, "proposed": 18, "draft": 6, "deprecated": 8, "stale": 8},
    "decision": {"validated": 58, "proposed": 14, "deprecated": 10, "stale": 8, "draft": 6, "rejected": 4},
    "gotcha": {"validated": 50, "proposed": 20, "draft": 16, "stale": 10, "deprecated": 4},
    "architecture": {"validated": 60, "proposed": 15, "stale": 15, "draft": 10},
    "glossary": {"validated": 70, "proposed": 15, "draft": 10, "stale": 5},
    "skill": {"validated": 60, "proposed": 20, "draft": 15, "stale": 5},
    "attempt": {"validated": 50, "draft": 25, "proposed": 15, "rejected": 10},
    "session_recap": {"validated": 55, "draft": 30, "stale": 15},
    "note": {"draft": 45, "validated": 30, "proposed": 10, "stale": 10, "deprecated": 5},
    "todo": {"draft": 60, "validated": 10, "stale": 20, "rejected": 5, "proposed": 5},
    "event": {"validated": 55, "draft": 40, "stale": 5},
    "person": {"validated": 60, "draft": 35, "stale": 5},
    "journal": {"draft": 75, "validated": 20, "stale": 5},
}

TRUST_BY_STATUS = {
    "validated": (0.70, 0.97), "proposed": (0.45, 0.72), "draft": (0.30, 0.62),
    "deprecated": (0.15, 0.45), "stale": (0.20, 0.50), "rejected": (0.03, 0.25),
}

WEIGHT_MEAN = {
    "convention": 0.72, "decision": 0.66, "gotcha": 0.70, "architecture": 0.64,
    "glossary": 0.45, "skill": 0.68, "attempt": 0.55, "session_recap": 0.50,
    "note": 0.40, "todo": 0.42, "event": 0.38, "person": 0.45, "journal": 0.30,
}

FEEL_BASE = {
    "emotional_significance": 0.28, "vulnerability": 0.10, "trauma": 0.04, "humor": 0.08,
    "happiness": 0.18, "sadness": 0.08, "fear": 0.12, "anger": 0.07, "surprise": 0.18,
    "disgust": 0.04, "contempt": 0.04, "embarrassment": 0.06, "shame": 0.04, "guilt": 0.05,
    "excitement": 0.18, "pride": 0.18, "valence": 0.10, "arousal": 0.28, "dominance": 0.50,
    "intensity": 0.28, "coherence_tension": 0.25,
    "salience": 0.45, "urgency": 0.25, "social_weight": 0.35, "agency": 0.50,
    "novelty": 0.32, "retrieval_utility": 0.55, "narrative_importance": 0.35,
    "aesthetic_quality": 0.40,
}

FEEL_TYPE = {
    "gotcha": dict(fear=0.48, surprise=0.58, urgency=0.62, salience=0.80, retrieval_utility=0.78,
                   valence=-0.35, arousal=0.52, intensity=0.50, anger=0.22, coherence_tension=0.52,
                   emotional_significance=0.45, embarrassment=0.15, novelty=0.45),
    "convention": dict(retrieval_utility=0.86, arousal=0.10, intensity=0.14, salience=0.55,
                       valence=0.15, dominance=0.68, agency=0.62, novelty=0.14,
                       aesthetic_quality=0.52, surprise=0.07, urgency=0.18),
    "decision": dict(retrieval_utility=0.72, narrative_importance=0.58, agency=0.72, dominance=0.62,
                     social_weight=0.55, valence=0.20, coherence_tension=0.36, pride=0.28,
                     salience=0.60),
    "architecture": dict(retrieval_utility=0.82, aesthetic_quality=0.62, narrative_importance=0.50,
                         arousal=0.14, valence=0.22, coherence_tension=0.20, pride=0.30,
                         dominance=0.60),
    "glossary": dict(retrieval_utility=0.76, arousal=0.07, intensity=0.08,
                     emotional_significance=0.10, novelty=0.20, narrative_importance=0.18,
                     valence=0.05, humor=0.05, salience=0.35, urgency=0.06),
    "skill": dict(retrieval_utility=0.86, agency=0.82, pride=0.30, valence=0.25, dominance=0.65,
                  urgency=0.20, aesthetic_quality=0.50),
    "attempt": dict(sadness=0.25, anger=0.20, embarrassment=0.25, surprise=0.40, valence=-0.25,
                    retrieval_utility=0.72, coherence_tension=0.45, novelty=0.45, salience=0.62,
                    emotional_significance=0.38),
    "session_recap": dict(narrative_importance=0.84, emotional_significance=0.50, pride=0.40,
                          happiness=0.35, excitement=0.30, valence=0.25, social_weight=0.55,
                          salience=0.58, agency=0.65),
    "note": dict(retrieval_utility=0.55, arousal=0.14, salience=0.35, intensity=0.15),
    "todo": dict(urgency=0.55, agency=0.72, salience=0.45, valence=0.0, narrative_importance=0.18,
                 coherence_tension=0.35),
    "event": dict(narrative_importance=0.72, surprise=0.35, arousal=0.45, social_weight=0.55,
                  salience=0.58, emotional_significance=0.42),
    "person": dict(social_weight=0.86, happiness=0.30, valence=0.35, retrieval_utility=0.60,
                   narrative_importance=0.45, emotional_significance=0.35),
    "journal": dict(emotional_significance=0.66, vulnerability=0.45, intensity=0.50, valence=0.0,
                    narrative_importance=0.60, humor=0.20, arousal=0.40, social_weight=0.30),
}

FEEL_TAG = {
    "incident": dict(fear=0.25, urgency=0.25, arousal=0.22, trauma=0.22, valence=-0.30,
                     narrative_importance=0.15, intensity=0.20),
    "security": dict(fear=0.15, urgency=0.10, salience=0.10),
    "on-call": dict(urgency=0.10, arousal=0.08),
    "flaky-test": dict(anger=0.15, contempt=0.06, coherence_tension=0.12),
    "release": dict(excitement=0.15, pride=0.10, valence=0.10),
    "onboarding": dict(happiness=0.12, social_weight=0.12, novelty=0.10),
}

PARTIAL_PREF = ["salience", "retrieval_utility", "valence", "urgency", "narrative_importance",
                "emotional_significance", "arousal", "novelty", "agency"]

EXTRA_HIVE = 9          # entries promoted to hivelore-style slug ids (besides hive=True ones)
N_DUPLICATES = 10       # derived "saved again by another session" memories
N_DUP_DELETED = 4

DUP_INTROS = [
    "Ran into this again on a feature branch. ",
    "Saving this from today's session — ",
    "Same root cause as something we had before: ",
    "(noting it here so the next agent finds it) ",
    "Re-learned the hard way this week. ",
    "Lost an hour to this again. ",
    "Quick version: ",
    "Another instance today. ",
    "Confirmed again while reviewing a PR: ",
    "Short form: ",
]


def beta_mean(rng, mean, conc=8.0):
    mean = min(max(mean, 0.02), 0.98)
    return rng.betavariate(mean * conc, (1.0 - mean) * conc)


def fmt_ts(dt):
    dt = dt.astimezone(UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (dt.microsecond // 1000)


def parse_ts(s):
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", s), s
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def work_time(rng, day):
    """A time on `day` (a date-ish datetime), mostly during European working hours."""
    if rng.random() < 0.85:
        hour = rng.choice([6, 7, 8, 8, 9, 9, 10, 10, 11, 12, 13, 13, 14, 14, 15, 15, 16, 17, 18])
    else:
        hour = rng.randrange(0, 24)
    return day.replace(hour=hour, minute=rng.randrange(60), second=rng.randrange(60),
                       microsecond=rng.randrange(1000) * 1000)


def random_created(rng):
    span = (LAST_CREATE - START).days
    day = START + timedelta(days=rng.randrange(span + 1))
    if day.weekday() >= 5 and rng.random() < 0.7:          # fewer memories at weekends
        day -= timedelta(days=day.weekday() - 4)
    return work_time(rng, day)


def slugify(text, words=6):
    parts = re.findall(r"[a-z0-9]+", text.lower())
    return "-".join(parts[:words])


def choose_status(rng, type_):
    dist = STATUS_DIST[type_]
    names = list(dist)
    return rng.choices(names, weights=[dist[n] for n in names])[0]


def make_duplicates(rng, entries):
    """Derived memories: the same lesson saved again by a later agent session."""
    pool = [e for e in entries if e["type"] in ("gotcha", "convention") and e.get("k")
            and not e.get("deleted") and e.get("title")]
    picked = rng.sample(pool, N_DUPLICATES)
    intros = DUP_INTROS[:]
    rng.shuffle(intros)
    dups = []
    for i, orig in enumerate(picked):
        first = orig["body"].split("\n\n")[0]
        body = intros[i] + first[0].lower() + first[1:] if intros[i].endswith(": ") or intros[i].endswith("— ") else intros[i] + first
        title = orig["title"]
        if i % 3 == 0:
            title = None
        elif i % 3 == 1:
            word = title.split()[0]
            if word.isalpha() and word[1:].islower():
                title = title[0].lower() + title[1:]
            else:
                title = "Again: " + title
        d = dict(type=orig["type"], where=orig["where"], title=title, tags=orig["tags"][:3],
                 body=body, status="draft", q=max(1.5, orig.get("q", 3.0) - 1.0),
                 dup_of=orig["k"])
        if i < N_DUP_DELETED:
            d["deleted"] = "duplicate"
        dups.append(d)
    return dups


def gen_feel(rng, e):
    t = e["type"]
    means = dict(FEEL_BASE)
    means.update(FEEL_TYPE.get(t, {}))
    for tag in e["tags"]:
        for dim, delta in FEEL_TAG.get(tag, {}).items():
            means[dim] = means[dim] + delta
    means.update(e.get("feel", {}))
    conc = 4.0 if t == "journal" else 9.0
    if e.get("partial"):
        k = rng.randint(3, 8)
        weights = [4 if d in PARTIAL_PREF else 1 for d in FEEL]
        dims = set()
        while len(dims) < k:
            dims.add(rng.choices(FEEL, weights=weights)[0])
    else:
        dims = set(FEEL)
    out = {}
    for dim in FEEL:
        if dim not in dims:
            continue
        if dim == "valence":
            m = min(max(means[dim], -0.95), 0.95)
            v = 2.0 * beta_mean(rng, (m + 1.0) / 2.0, conc) - 1.0
        else:
            v = beta_mean(rng, means[dim], conc)
        out["feel_" + dim] = round(v, 3)
    return out


def gen_ratings(rng, q, kind):
    if kind == "none":
        return 0, 0
    n = rng.randint(1, 4) if kind == "few" else rng.choice([5, 5, 6, 6, 7, 8, 9, 11, 13, 17, 24])
    vals = [min(5, max(1, round(rng.gauss(q, 0.85)))) for _ in range(n)]
    return sum(vals), n


def build():
    rng = RNG
    entries = [dict(e) for e in ENTRIES]
    for e in entries:
        e.setdefault("q", 3.0)
    entries += make_duplicates(rng, entries)
    by_key = {}
    for e in entries:
        if e.get("k"):
            assert e["k"] not in by_key, e["k"]
            by_key[e["k"]] = e

    # --- created_at
    for e in entries:
        if e.get("date"):
            mm, dd = map(int, e["date"].split("-"))
            e["created"] = work_time(rng, datetime(2026, mm, dd, tzinfo=UTC))
        elif e.get("dup_of"):
            base = by_key[e["dup_of"]]
            if "created" not in base:
                base["created"] = random_created(rng)
            e["created"] = min(base["created"] + timedelta(days=rng.uniform(4, 70)), LAST_CREATE)
        elif "created" not in e:
            e["created"] = random_created(rng)

    # --- relationships (by key for now)
    for e in entries:
        e["rels"] = [(t, k, s) for (t, k, s) in e.get("rel", [])]
        if e.get("dup_of"):
            e["rels"].append((e["dup_of"], "duplicates", 0.95))
    for src, dst, kind, strength in EXTRA_RELS:
        by_key[src]["rels"].append((dst, kind, strength))
    # a superseding memory is newer than what it supersedes
    for e in entries:
        for t, kind, _ in e["rels"]:
            if kind == "supersedes" and t in by_key and by_key[t]["created"] >= e["created"]:
                e["created"] = by_key[t]["created"] + timedelta(days=rng.uniform(3, 40),
                                                                 minutes=rng.uniform(0, 600))
                assert e["created"] <= NOW

    # --- hivelore-style ids
    candidates = [e for e in entries if e["type"] in HIVE_TYPES and e.get("title")
                  and e["where"] != "personal" and not e.get("hive") and not e.get("deleted")
                  and not e.get("dup_of") and "\x1b" not in e["title"]]
    for e in rng.sample(candidates, EXTRA_HIVE):
        e["hive"] = True

    # --- ids: mem-NNNN in creation order
    entries.sort(key=lambda e: e["created"])
    n = 0
    seen_slugs = set()
    for e in entries:
        if e.get("hive"):
            slug = "%s-%s-%s" % (e["created"].strftime("%Y-%m-%d"), e["type"], slugify(e["title"]))
            assert slug not in seen_slugs
            seen_slugs.add(slug)
            e["id"] = slug
        else:
            n += 1
            e["id"] = "mem-%04d" % n
    key_to_id = {e["k"]: e["id"] for e in entries if e.get("k")}
    ids = [e["id"] for e in entries]

    def resolve(t):
        return key_to_id.get(t, t)

    for e in entries:
        e["rels"] = [(resolve(t), kind, s) for t, kind, s in e["rels"]]
    for src, dst, kind, strength in MISSING_RELS:
        assert dst not in ids
        by_key[src]["rels"].append((dst, kind, strength))

    # random "related" links so that about 40% of memories have relationships
    target_with = round(0.40 * len(entries))
    have = sum(1 for e in entries if e["rels"])
    lonely = [e for e in entries if not e["rels"] and not e.get("deleted")]
    for e in rng.sample(lonely, max(0, target_with - have)):
        tagset = set(e["tags"])
        pool = [o for o in entries if o is not e and tagset & set(o["tags"])]
        pool.sort(key=lambda o: (-len(tagset & set(o["tags"])) - (o["where"] == e["where"]),
                                 rng.random()))
        for o in pool[:rng.choice([1, 1, 1, 2, 2, 3])]:
            strength = round(rng.uniform(0.25, 0.85), 2) if rng.random() < 0.7 else None
            e["rels"].append((o["id"], rng.choice(["related"] * 6 + ["depends_on", "implements"]),
                              strength))

    # --- per-record metadata
    scored_kind = {}
    records = []
    rated_kinds = []
    for e in entries:
        r = rng.random()
        rated_kinds.append("none" if r < 0.42 else "few" if r < 0.72 else "many")
    for e, rk in zip(entries, rated_kinds):
        t = e["type"]
        assert t in STATUS_DIST, t
        rec = {"id": e["id"]}
        title = e.get("title")
        body = e["body"]
        if e.get("hive") and title:
            body = "# %s\n\n%s" % (title, body)
        if title:
            rec["title"] = title
        rec["body"] = body
        rec["type"] = t
        where = e["where"]
        if where in MODULES:
            rec["scope"] = "module"
            rec["module"] = where
        else:
            assert where in ("personal", "team", "shared"), where
            rec["scope"] = where
        status = e.get("status") or choose_status(rng, t)
        rec["status"] = status
        tags = list(e["tags"])
        if t in ("journal", "todo", "note") and where == "personal" and rng.random() < 0.2:
            tags = []
        rec["tags"] = tags
        rec["weight"] = round(beta_mean(rng, WEIGHT_MEAN[t] + (0.08 if status == "validated" else 0), 10), 2)
        lo, hi = TRUST_BY_STATUS[status]
        rec["trust"] = round(rng.uniform(lo, hi), 2)
        if "conf" in e:
            rec["confidence"] = e["conf"]
        elif rng.random() < (0.7 if t in REMEMBER_TYPES else 0.25):
            rec["confidence"] = round(beta_mean(rng, 0.45 + 0.1 * e["q"] - 0.2, 6), 2)

        created = e["created"]
        if rng.random() < 0.35:
            updated = created
        else:
            updated = created + timedelta(hours=rng.expovariate(1 / (24 * 14)))
            updated = min(updated, NOW - timedelta(minutes=rng.uniform(5, 600)))
            updated = max(updated, created)
        deleted_at = None
        if e.get("deleted"):
            deleted_at = min(updated + timedelta(hours=rng.uniform(1, 24 * 20)), NOW)
            updated = deleted_at
        rec["created_at"] = fmt_ts(created)
        rec["updated_at"] = fmt_ts(updated)
        if deleted_at:
            rec["deleted_at"] = fmt_ts(deleted_at)
            reason = e["deleted"]
            if reason == "duplicate":
                reason = "duplicate of %s" % key_to_id[e["dup_of"]]
            rec["deleted_reason"] = reason

        read_p = 0.8 if status == "validated" else 0.45
        if e.get("nofeel"):
            read_p = 0.0
        if rng.random() < read_p:
            limit = deleted_at or NOW
            span = (limit - created).total_seconds()
            last = created + timedelta(seconds=span * (1 - rng.random() ** 2.5))
            rec["last_read_at"] = fmt_ts(last)
            base = {"convention": 14, "skill": 12, "gotcha": 10, "architecture": 9}.get(t, 4)
            rec["read_count"] = 1 + int(rng.expovariate(1 / base))

        q = min(4.9, max(1.1, e["q"] + rng.uniform(-0.35, 0.35)))
        if e.get("nofeel"):
            rk = "none"
        rec["rating_sum"], rec["rating_count"] = gen_ratings(rng, q, rk)

        rels = []
        seen = set()
        for target, kind, strength in e["rels"]:
            if target == rec["id"] or target in seen:
                continue
            seen.add(target)
            rel = {"target": target, "kind": kind}
            if strength is not None:
                rel["strength"] = strength
            rels.append(rel)
        rec["relationships"] = rels[:4]

        if not e.get("nofeel"):
            r = rng.random()
            if e.get("feel") or r < 0.49:
                scored_kind[rec["id"]] = "full"
            elif r < 0.75:
                scored_kind[rec["id"]] = "partial"
                e["partial"] = True
        if rec["id"] in scored_kind:
            rec.update(gen_feel(rng, e))

        if rng.random() < (0.35 if rec["id"] in scored_kind else 0.08):
            rec["rem_visits"] = rng.randint(1, 12)

        src = None
        if e.get("hive"):
            folder = {"team": "team", "shared": "shared"}.get(rec["scope"], None)
            if rec["scope"] == "module":
                folder = "modules/" + rec["module"]
            src = {"system": "hivelore", "path": ".ai/memories/%s/%s.md" % (folder, rec["id"])}
        elif t in HIVE_TYPES and rng.random() < 0.12:
            slug = "%s-%s-%s" % (created.strftime("%Y-%m-%d"), t, slugify(title or body, 5))
            src = {"system": "hivelore", "path": ".ai/memories/team/%s.md" % slug}
        elif t == "person" and title and rng.random() < 0.5:
            src = {"system": "mcp-memory", "id": title}
        elif t in REMEMBER_TYPES and rng.random() < 0.35:
            src = {"system": "remember-mcp", "id": "%08x-%04x-4%03x-%04x-%012x" % (
                rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(12),
                0x8000 | rng.getrandbits(14), rng.getrandbits(48))}
        if src:
            rec["source"] = src

        extra = dict(e.get("extra", {}))
        if e.get("hive"):
            extra.setdefault("anchor", {"paths": [], "symbols": []})
            extra.setdefault("expires_when", None)
            if status == "validated":
                extra["verified_at"] = fmt_ts(min(updated + timedelta(minutes=rng.uniform(1, 90)), NOW))
            extra["revision_count"] = rng.choice([0, 0, 0, 1, 2, 3, 7])
        rec.update(extra)
        records.append(rec)

    # a few non-hivelore records with fields memlens doesn't model
    plain = [r for r in records if "source" not in r and r["type"] in ("gotcha", "decision")
             and r["scope"] == "module" and "anchor" not in r]
    for r in rng.sample(plain, 3):
        r["anchor"] = {"paths": ["crates/%s/src/lib.rs" % {
            "ledger": "ledger-core", "api": "ledger-api", "payouts": "payouts-worker",
            "webhooks": "webhooks", "recon": "recon", "infra": "outbox-relay",
            "web": "../console/src", "ci": "../.github", "sdk": "../sdk/src"}[r["module"]]]}
    for r in rng.sample([r for r in records if r["type"] == "todo"], 2):
        r["expires_when"] = None
    return records


# ---------------------------------------------------------------------------
# Output and validation
# ---------------------------------------------------------------------------

KEY_ORDER = (["id", "title", "body", "type", "scope", "module", "status", "tags", "weight",
              "trust", "confidence", "created_at", "updated_at", "deleted_at", "deleted_reason",
              "last_read_at", "read_count", "rating_sum", "rating_count", "relationships"]
             + ["feel_" + d for d in FEEL] + ["rem_visits", "source"])
DERIVED = {"rating_bayesian", "rating_avg", "relationship_count", "feel_significance",
           "functional_significance", "total_significance"}


def ordered(rec):
    out = {k: rec[k] for k in KEY_ORDER if k in rec}
    out.update((k, v) for k, v in rec.items() if k not in out)
    return out


def two_decimals(x):
    return isinstance(x, float) and 0.0 <= x <= 1.0 and abs(round(x, 2) - x) < 1e-12


def validate(records):
    ids = [r["id"] for r in records]
    assert len(ids) == len(set(ids)), "duplicate ids"
    idset = set(ids)
    missing = []
    for r in records:
        rid = r["id"]
        assert 1 <= len(rid) <= 200 and not any(ord(c) < 0x20 or ord(c) == 0x7f for c in rid), rid
        assert isinstance(r["body"], str) and r["body"].strip() and len(r["body"].encode()) <= 1 << 20, rid
        assert re.fullmatch(r"[a-z0-9_-]{1,40}", r["type"]), rid
        assert r["scope"] in SCOPES and r["status"] in STATUSES, rid
        assert (r["scope"] == "module") == ("module" in r), rid
        if "module" in r:
            assert r["module"] in MODULES
        tags = r["tags"]
        assert len(tags) <= 5 and len(set(tags)) == len(tags) and set(tags) <= TAGS, (rid, tags)
        for f in ("weight", "trust"):
            assert two_decimals(r[f]), (rid, f, r[f])
        if "confidence" in r:
            assert two_decimals(r["confidence"]), rid
        c, u = parse_ts(r["created_at"]), parse_ts(r["updated_at"])
        assert datetime(2026, 1, 1, tzinfo=UTC) <= c <= u <= NOW, rid
        if "deleted_at" in r:
            d = parse_ts(r["deleted_at"])
            assert c <= d <= NOW and r.get("deleted_reason"), rid
        assert ("last_read_at" in r) == ("read_count" in r), rid
        if "last_read_at" in r:
            lr = parse_ts(r["last_read_at"])
            assert c <= lr <= NOW and r["read_count"] >= 1, rid
        s, n = r["rating_sum"], r["rating_count"]
        assert isinstance(s, int) and isinstance(n, int) and n <= s <= 5 * n, rid
        assert len(r["relationships"]) <= 4, rid
        for rel in r["relationships"]:
            assert set(rel) <= {"target", "kind", "strength"} and rel["kind"], rid
            assert rel["target"] != rid
            if "strength" in rel:
                assert 0.0 <= rel["strength"] <= 1.0
            if rel["target"] not in idset:
                missing.append((rid, rel["target"]))
        for d in FEEL:
            v = r.get("feel_" + d)
            if v is not None:
                lo = -1.0 if d == "valence" else 0.0
                assert lo <= v <= 1.0 and round(v, 3) == v, (rid, d, v)
        if "rem_visits" in r:
            assert isinstance(r["rem_visits"], int) and r["rem_visits"] >= 0
        if "source" in r:
            assert set(r["source"]) <= {"system", "path", "id"} and r["source"]["system"]
        assert not (DERIVED & set(r)), rid
    assert len(missing) == 2, missing

    n = len(records)
    by_type = Counter(r["type"] for r in records)
    by_scope = Counter(r["scope"] for r in records)
    by_status = Counter(r["status"] for r in records)
    assert n >= 320, n
    for t in HIVE_TYPES + REMEMBER_TYPES:
        assert by_type[t] >= 3, t
    assert by_type["session_recap"] >= 15
    for s in SCOPES:
        assert by_scope[s] >= 3, s
    for s in STATUSES:
        assert by_status[s] >= 3, s
    rated5 = [r for r in records if r["rating_count"] >= 5]
    assert len(rated5) >= 40
    assert len({round(r["rating_sum"] / r["rating_count"], 1) for r in rated5}) >= 8
    nfeel = [sum(1 for d in FEEL if "feel_" + d in r) for r in records]
    scored = sum(1 for k in nfeel if k)
    assert 0.65 <= scored / n <= 0.85, scored / n
    with_rels = sum(1 for r in records if r["relationships"])
    assert 0.33 <= with_rels / n <= 0.47, with_rels / n
    ctrl = [r["id"] for r in records
            if any(ord(ch) < 0x20 and ch != "\n" for ch in r["body"] + r.get("title", ""))]
    assert len(ctrl) == 3, ctrl
    assert sum(1 for r in records if "title" not in r) >= 20
    deleted = sum(1 for r in records if "deleted_at" in r)
    assert 6 <= deleted <= 10
    lengths = sorted(len(r["body"]) for r in records)
    return dict(
        total=n, by_type=dict(sorted(by_type.items())), by_scope=dict(sorted(by_scope.items())),
        by_status=dict(sorted(by_status.items())), rated_ge5=len(rated5),
        rated_1_4=sum(1 for r in records if 1 <= r["rating_count"] <= 4),
        scored_full=sum(1 for k in nfeel if k == 29), scored_partial=sum(1 for k in nfeel if 0 < k < 29),
        unscored=n - scored, with_relationships=with_rels, missing_targets=len(missing),
        deleted=deleted, untitled=sum(1 for r in records if "title" not in r),
        hivelore_ids=sum(1 for r in records if not r["id"].startswith("mem-")),
        with_control_chars=len(ctrl),
        body_len_min_median_max=(lengths[0], lengths[n // 2], lengths[-1]),
    )


def main():
    out_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "assets", "demo.jsonl")
    records = [ordered(r) for r in build()]
    records.sort(key=lambda r: r["id"])
    summary = validate(records)
    # a few memories that wait for a person, written by hand in hivelore's fields, so
    # that every review queue of the demo has something in it: approvals,
    # agent-validated ones, a conflict
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "assets", "review_demo.jsonl"), encoding="utf-8") as f:
        records += [ordered(json.loads(line)) for line in f if line.strip()]
    records.sort(key=lambda r: r["id"])
    lines = [json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in records]
    text = "\n".join(lines) + "\n"
    # control characters must only appear as JSON escapes, one record per line
    assert not any(ord(ch) < 0x20 and ch != "\n" for ch in text)
    assert [json.loads(l) for l in text.splitlines()] == records
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    with open(out_path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    print("wrote %s" % os.path.normpath(out_path))
    for k, v in summary.items():
        print("%-24s %s" % (k, v))


if __name__ == "__main__":
    main()
