// Makes the files that memlens's client tests compare against, with the clients' own code:
// the MCP reference memory server (driven over stdio through its own tools, writing its own
// memory.jsonl) and remember-core (MemoryService.create on its mock collection, its
// composite-scoring and trust normalisation). Run through scripts/client_reference.sh.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { MemoryService } from "@prmichaelsen/remember-core/services";
import { computeAllComposites } from "@prmichaelsen/remember-core/services";
import { createMockCollection } from "@prmichaelsen/remember-core/testing";
import { ALL_SCORING_DIMENSIONS } from "@prmichaelsen/remember-core/database/weaviate";
import { normalizeTrustScore, TRUST_LABELS } from "@prmichaelsen/remember-core/types";
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import os from "node:os";

const out = process.argv[2];
const require = createRequire(import.meta.url);

// ---- The MCP memory server --------------------------------------------------------
async function mcpMemory() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-memory-"));
  const file = path.join(dir, "memory.jsonl");
  const server = require.resolve("@modelcontextprotocol/server-memory/dist/index.js");
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [server],
    env: { ...process.env, MEMORY_FILE_PATH: file },
  });
  const client = new Client({ name: "memlens-reference", version: "1" });
  await client.connect(transport);
  const call = (name, args) => client.callTool({ name, arguments: args });
  const long = "A design note whose name is a whole sentence: " + "and it goes on ".repeat(15) + "until it ends.";
  await call("create_entities", {
    entities: [
      { name: "Ada Lovelace", entityType: "person", observations: ["wrote the first program", "worked with Babbage"] },
      { name: "Analytical Engine", entityType: "machine", observations: ["a general-purpose computer"] },
      { name: long, entityType: "note", observations: ["names over 200 characters are accepted"] },
      { name: "first line\nsecond line", entityType: "note", observations: ["a name with a newline"] },
      { name: "Empty", entityType: "concept", observations: [] },
      { name: "Short-lived", entityType: "concept", observations: ["deleted later"] },
    ],
  });
  await call("create_relations", {
    relations: [
      { from: "Ada Lovelace", to: "Analytical Engine", relationType: "wrote programs for" },
      { from: long, to: "first line\nsecond line", relationType: "mentions" },
      { from: "Never Created", to: "Ada Lovelace", relationType: "admires" },
      { from: "Analytical Engine", to: "Also Never Created", relationType: "inspired" },
    ],
  });
  await call("delete_entities", { entityNames: ["Short-lived"] });
  // The server accepts a relation from an entity that was deleted.
  await call("create_relations", {
    relations: [{ from: "Short-lived", to: "Analytical Engine", relationType: "described" }],
  });
  const graph = JSON.parse((await call("read_graph", {})).content[0].text);
  await client.close();
  writeFileSync(path.join(out, "mcp_memory.jsonl"), readFileSync(file));
  writeFileSync(path.join(out, "mcp_memory.graph.json"), JSON.stringify(graph, null, 1) + "\n");
}

// ---- remember-core -------------------------------------------------------------
let seed = 20260425;
function next() {
  // A fixed linear congruential generator, so the values are the same on every run.
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}
const score = (dim) => {
  const v = Math.round(next() * 1000) / 1000;
  return dim === "feel_valence" ? Math.round((v * 2 - 1) * 1000) / 1000 : v;
};
const feelDims = ALL_SCORING_DIMENSIONS.filter((d) => d.startsWith("feel_"));
const functionalDims = ALL_SCORING_DIMENSIONS.filter((d) => d.startsWith("functional_"));
const scores = (dims) => Object.fromEntries(dims.map((d) => [d, score(d)]));

async function rememberCore() {
  const collection = createMockCollection();
  const service = new MemoryService(collection, "user-1", { debug() {}, info() {}, warn() {}, error() {} }, {
    memoryIndex: { index: async () => {}, lookup: async () => null },
  });
  const inputs = [
    { title: "Every dimension", content: "a memory scored on both layers", type: "event", ...scores(ALL_SCORING_DIMENSIONS) },
    { title: "Functional only", content: "scored on the functional layer only", type: "person", ...scores(functionalDims) },
    { title: "Feel only", content: "scored on the emotional layer only", type: "journal", ...scores(feelDims) },
    {
      title: "Two valences", content: "negative feeling, positive function", type: "recipe",
      feel_valence: -0.8, functional_valence: 0.9, feel_coherence_tension: 0.2, functional_coherence_tension: 0.7,
      feel_humor: 0.1, functional_salience: 0.3,
    },
    { title: "Unscored goal", content: "no scores at all", type: "goal" },
    { title: "An idea", content: "an idea with a few scores", type: "idea", feel_pride: 0.35, functional_novelty: 0.95, functional_agency: 0.05 },
    { title: "Not a content type", content: "create falls back to note", type: "bogus" },
    { title: "Empty content", content: "", type: "note" },
    { title: "Edges", content: "range edges", type: "code", feel_valence: -1, feel_trauma: 0, functional_valence: 1, functional_urgency: 0 },
  ];
  for (let i = 0; i < 5; i++) {
    inputs.push({ title: `Random ${i}`, content: `random scores ${i}`, type: "memory", ...scores(ALL_SCORING_DIMENSIONS.filter(() => next() < 0.6)) });
  }
  const ids = [];
  for (const input of inputs) ids.push((await service.create(input)).memory_id);
  // Every confidentiality level (create gives SECRET), and legacy floats as older stores hold them.
  const levels = [1, 2, 3, 4];
  const legacy = [0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0, 0.125, 0.875];
  for (const [i, level] of levels.entries()) {
    await collection.data.update({ id: ids[i], properties: { trust_score: level } });
  }
  for (const [i, value] of legacy.entries()) {
    const id = (await service.create({ title: `Legacy trust ${value}`, content: `legacy trust_score ${value}`, type: "note" })).memory_id;
    await collection.data.update({ id, properties: { trust_score: value } });
    ids.push(id);
  }
  const lines = [];
  const expected = {};
  for (const id of ids) {
    const props = collection._store.get(id).properties;
    const record = { id, ...props };
    lines.push(JSON.stringify(record));
    const dims = Object.fromEntries(ALL_SCORING_DIMENSIONS.filter((d) => props[d] !== undefined).map((d) => [d, props[d]]));
    const level = normalizeTrustScore(props.trust_score);
    expected[id] = {
      title: props.title,
      content: props.content,
      content_type: props.content_type,
      trust_level: level,
      trust_label: TRUST_LABELS[level],
      scores: dims,
      composites: computeAllComposites(dims),
      stored_composites: {
        feel_significance: props.feel_significance ?? null,
        functional_significance: props.functional_significance ?? null,
        total_significance: props.total_significance ?? null,
      },
    };
  }
  writeFileSync(path.join(out, "remember_core.jsonl"), lines.join("\n") + "\n");
  writeFileSync(path.join(out, "remember_core.expected.json"), JSON.stringify(expected, null, 1) + "\n");
  const labels = Object.fromEntries([1, 2, 3, 4, 5].map((l) => [l, TRUST_LABELS[l]]));
  writeFileSync(path.join(out, "remember_core.trust_labels.json"), JSON.stringify(labels) + "\n");
}

await mcpMemory();
await rememberCore();
