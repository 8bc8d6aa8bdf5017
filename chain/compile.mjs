// Compiles chain/contracts/*.sol offline with solc-js (npm `solc`, wasm) and writes small
// artifacts ({contractName, abi, bytecode, compiler}) to fixtures/chain/contracts/, which are
// committed so deploying never needs a compiler. Also copies OpenZeppelin 4's published
// ERC20PresetFixedSupply and ERC721PresetMinterPauserAutoId artifacts there in the same
// trimmed shape, and the published Uniswap V2 (WETH9, factory, Router02), ENS (registry,
// reverse registrar, public resolver) and ERC-4337 v0.7 EntryPoint artifacts listed in PUBLISHED.
// The smart-account group (chain/contracts/aa/*.sol and the VerifyingPaymaster sample of
// @account-abstraction/contracts) is a second compilation against the OpenZeppelin 5 that
// package ships (the first one uses OpenZeppelin 4).
//
//   node compile.mjs            write the artifacts
//   node compile.mjs --check    exit 1 if the committed artifacts differ from a fresh build
import { readFileSync, readdirSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const solc = require("solc");

const here = dirname(fileURLToPath(import.meta.url));
const contractsDir = join(here, "contracts");
const outDir = resolve(here, "..", "fixtures", "chain", "contracts");
const check = process.argv.includes("--check");

const SETTINGS = {
  evmVersion: "paris",
  optimizer: { enabled: true, runs: 200 },
  outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
};

// Artifacts copied as published (bytecode included, never recompiled: the npm Router02's
// init-code hash is the keccak of the npm UniswapV2Pair bytecode the npm factory deploys).
const PUBLISHED = [
  ["@uniswap/v2-core", "build", ["UniswapV2Factory"]],
  ["@uniswap/v2-periphery", "build", ["WETH9", "UniswapV2Router02"]],
  ["@ensdomains/ens", "build/contracts", ["ENSRegistry", "ReverseRegistrar"]],
  ["@ensdomains/resolver", "build/contracts", ["PublicResolver"]],
  // The canonical EntryPoint v0.7 (its CREATE2 address needs the published bytecode).
  ["@account-abstraction/contracts", "artifacts", ["EntryPoint"]],
];

const AA_DIR = join(contractsDir, "aa");
const AA_OZ = "@account-abstraction/contracts/node_modules/@openzeppelin/contracts/";
const AA_SAMPLES = ["@account-abstraction/contracts/samples/VerifyingPaymaster.sol"];
// What the smart-account group writes: its contracts, and the proxy whose creation code the
// engine hashes for counterfactual addresses (modalcore/aa/userop.py).
const AA_WANTED = ["ModalSmartAccount", "ModalSmartAccountFactory", "VerifyingPaymaster", "ERC1967Proxy"];
const AA_SETTINGS = { ...SETTINGS, evmVersion: "cancun", remappings: [`@openzeppelin/contracts/=${AA_OZ}`] };

function findImport(path) {
  const candidates = [join(here, "node_modules", path), join(contractsDir, path)];
  for (const file of candidates) {
    if (existsSync(file)) return { contents: readFileSync(file, "utf8") };
  }
  return { error: `not found: ${path}` };
}

function solcRun(sources, settings) {
  const input = { language: "Solidity", sources, settings };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport }));
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  for (const e of output.errors ?? []) console.error(e.formattedMessage);
  if (errors.length > 0) process.exit(1);
  return output;
}

function compileSmartAccounts(artifacts) {
  const sources = {};
  for (const name of readdirSync(AA_DIR).filter((f) => f.endsWith(".sol")).sort()) {
    sources[`aa/${name}`] = { content: readFileSync(join(AA_DIR, name), "utf8") };
  }
  for (const path of AA_SAMPLES) sources[path] = { content: findImport(path).contents };
  const output = solcRun(sources, AA_SETTINGS);
  const { remappings, outputSelection, ...compiler } = AA_SETTINGS;
  for (const [sourceName, contracts] of Object.entries(output.contracts)) {
    for (const [contractName, c] of Object.entries(contracts)) {
      if (!AA_WANTED.includes(contractName)) continue;
      artifacts[contractName] = {
        contractName,
        sourceName: sourceName.startsWith("aa/") ? `chain/contracts/${sourceName}` : sourceName,
        compiler: { solc: solc.version(), ...compiler, openzeppelin: "5 (as @account-abstraction/contracts ships it)" },
        abi: c.abi,
        bytecode: "0x" + c.evm.bytecode.object,
      };
    }
  }
}

function compile() {
  const sources = {};
  for (const name of readdirSync(contractsDir).filter((f) => f.endsWith(".sol")).sort()) {
    sources[name] = { content: readFileSync(join(contractsDir, name), "utf8") };
  }
  const output = solcRun(sources, SETTINGS);

  const artifacts = {};
  for (const sourceName of Object.keys(sources)) {
    for (const [contractName, c] of Object.entries(output.contracts[sourceName])) {
      artifacts[contractName] = {
        contractName,
        sourceName: `chain/contracts/${sourceName}`,
        compiler: { solc: solc.version(), ...SETTINGS, outputSelection: undefined },
        abi: c.abi,
        bytecode: "0x" + c.evm.bytecode.object,
      };
    }
  }
  const ozVersion = require("@openzeppelin/contracts/package.json").version;
  for (const name of ["ERC20PresetFixedSupply", "ERC721PresetMinterPauserAutoId"]) {
    const oz = require(`@openzeppelin/contracts/build/contracts/${name}.json`);
    artifacts[name] = {
      contractName: oz.contractName,
      sourceName: `@openzeppelin/contracts@${ozVersion}/${oz.sourceName}`,
      compiler: { published: "@openzeppelin/contracts build/contracts" },
      abi: oz.abi,
      bytecode: oz.bytecode,
    };
  }
  for (const [pkg, dir, names] of PUBLISHED) {
    const version = require(`${pkg}/package.json`).version;
    for (const name of names) {
      const published = require(`${pkg}/${dir}/${name}.json`);
      const bytecode = String(published.bytecode);
      artifacts[name] = {
        contractName: name,
        sourceName: `${pkg}@${version}/${dir}/${name}.json`,
        compiler: { published: `${pkg} ${dir}` },
        abi: published.abi,
        bytecode: bytecode.startsWith("0x") ? bytecode : "0x" + bytecode,
      };
    }
  }
  compileSmartAccounts(artifacts);
  return artifacts;
}

const artifacts = compile();
mkdirSync(outDir, { recursive: true });
let stale = 0;
for (const [name, artifact] of Object.entries(artifacts)) {
  const file = join(outDir, `${name}.json`);
  const text = JSON.stringify(artifact, null, 1) + "\n";
  if (check) {
    const current = existsSync(file) ? readFileSync(file, "utf8") : "";
    if (current !== text) {
      console.error(`stale: ${file}`);
      stale += 1;
    }
  } else {
    writeFileSync(file, text);
    console.log(`wrote ${file} (${text.length} bytes)`);
  }
}
if (check) {
  if (stale > 0) process.exit(1);
  console.log(`artifacts up to date (${Object.keys(artifacts).length})`);
}
