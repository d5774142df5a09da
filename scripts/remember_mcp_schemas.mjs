// Writes tests/reference/remember_mcp_schemas.json from remember-mcp's own code: the input
// schemas its MCP server lists (its own request handlers, asked `tools/list` by an MCP
// client over an in-memory transport, so no database is needed), and what remember-core,
// the library behind it, does with those arguments: which stored field each scored
// argument of create and update ends in (MemoryService on remember-core's mock
// collection) and which stored field each `remember_search_by` filter compares (its own
// filter builder). Run through scripts/remember_mcp_schemas.sh.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { MemoryService } from "@prmichaelsen/remember-core/services";
import { createMockCollection } from "@prmichaelsen/remember-core/testing";
import { buildMemoryOnlyFilters } from "@prmichaelsen/remember-core/utils";
import { ALL_SCORING_DIMENSIONS } from "@prmichaelsen/remember-core/database/weaviate";
import { copyFileSync, appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

const out = process.argv[2];
// The packages as installed beside this script (their package.json files are not exported).
const modules = path.join(path.dirname(fileURLToPath(import.meta.url)), "node_modules");
const pkgDir = path.join(modules, "@prmichaelsen/remember-mcp");
const version = (name) => JSON.parse(readFileSync(path.join(modules, name, "package.json"))).version;
const TOOLS = ["remember_create_memory", "remember_update_memory", "remember_search_by"];

// The package exports only createServer, which first connects to its databases; the
// function that registers the tool handlers is exported from a copy of the same bundle.
const bundle = path.join(pkgDir, "dist", "server-factory.js");
const probe = path.join(pkgDir, "dist", "server-factory.handlers.js");
copyFileSync(bundle, probe);
appendFileSync(probe, "\nexport { registerHandlers };\n");
const { registerHandlers } = await import(probe);

const server = new Server({ name: "remember-mcp", version: "probe" }, { capabilities: { tools: {} } });
registerHandlers(server, "schema-user", "schema-token", undefined);
const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
await server.connect(serverSide);
const client = new Client({ name: "memlens-reference", version: "1" });
await client.connect(clientSide);
const { tools } = await client.listTools();
await client.close();

// Only what a schema says about a value: descriptions are prose and left out.
function strip(schema) {
  if (Array.isArray(schema)) return schema.map(strip);
  if (schema === null || typeof schema !== "object") return schema;
  return Object.fromEntries(
    Object.entries(schema).filter(([k]) => k !== "description").map(([k, v]) => [k, strip(v)]),
  );
}

const picked = {};
for (const name of TOOLS) {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`remember-mcp lists no ${name}`);
  picked[name] = {
    properties: strip(tool.inputSchema.properties),
    required: tool.inputSchema.required ?? [],
  };
}
// The byProperty sort fields remember_search_by's description lists, line by line.
const description = tools.find((t) => t.name === "remember_search_by").description;
const listed = description.split("Available sort_field values for byProperty:")[1].split("byProperty examples:")[0];
picked.remember_search_by.sort_field_values = [...new Set(
  listed
    .split("\n")
    .map((line) => line.split(":").slice(1).join(":"))
    .flatMap((rest) => rest.match(/\b[a-z][a-z_]*[a-z]\b/g) ?? [])
    .filter((w) => w.includes("_") || /^(weight|confidence|strength|version)$/.test(w)),
)];

// What remember-core stores for each scored argument: every argument a value of its own.
const scored = (props) => Object.keys(props).filter((k) => /^(feel|functional)_/.test(k));
const logger = { debug() {}, info() {}, warn() {}, error() {} };
const collection = createMockCollection();
const service = new MemoryService(collection, "schema-user", logger, {
  memoryIndex: { index: async () => {}, lookup: async () => null },
});
function storedAs(names, props) {
  const values = Object.fromEntries(names.map((n, i) => [n, (i + 1) / 100]));
  return Object.fromEntries(
    names.map((n) => [n, ALL_SCORING_DIMENSIONS.find((d) => props[d] === values[n]) ?? null]),
  );
}
const createNames = scored(picked.remember_create_memory.properties);
const createArgs = Object.fromEntries(createNames.map((n, i) => [n, (i + 1) / 100]));
const { memory_id } = await service.create({ content: "every scored argument", ...createArgs });
const created = collection._store.get(memory_id).properties;

const updateNames = scored(picked.remember_update_memory.properties);
const plain = (await service.create({ content: "updated with every scored argument" })).memory_id;
const updateArgs = Object.fromEntries(updateNames.map((n, i) => [n, (i + 1) / 100]));
const update = await service.update({ memory_id: plain, content: "changed", ...updateArgs });
const updated = collection._store.get(plain).properties;

// The stored field each search filter compares: the comparisons remember-core's filter
// builder adds for that filter alone, beyond those it makes with no filter at all.
function comparisons(filter, acc = []) {
  if (Array.isArray(filter)) filter.forEach((f) => comparisons(f, acc));
  else if (filter && typeof filter === "object") {
    if (typeof filter.field === "string") acc.push(JSON.stringify([filter._type, filter.field, filter.value ?? filter.values]));
    else Object.values(filter).forEach((v) => comparisons(v, acc));
  }
  return acc;
}
const sample = { array: ["note"], number: 1, string: "2026-01-01T00:00:00Z", boolean: true };
const base = new Set(comparisons(buildMemoryOnlyFilters(collection, {})));
const filterFields = {};
for (const [key, schema] of Object.entries(picked.remember_search_by.properties.filters.properties)) {
  const added = comparisons(buildMemoryOnlyFilters(collection, { [key]: sample[schema.type] }))
    .filter((c) => !base.has(c))
    .map((c) => JSON.parse(c)[1]);
  filterFields[key] = [...new Set(added)];
}

const reference = {
  package: "@prmichaelsen/remember-mcp",
  version: version("@prmichaelsen/remember-mcp"),
  remember_core_version: version("@prmichaelsen/remember-core"),
  tools: picked,
  remember_core: {
    scoring_dimensions: ALL_SCORING_DIMENSIONS,
    create_stores: storedAs(createNames, created),
    update_stores: storedAs(updateNames, updated),
    update_fields: update.updated_fields,
    filter_fields: filterFields,
  },
};
writeFileSync(path.join(out, "remember_mcp_schemas.json"), JSON.stringify(reference, null, 1) + "\n");
process.exit(0);
