// An independent verifier for the SIWX tests (issue 32 item 5): viem's publicClient.verifyMessage,
// which checks EOA, ERC-1271 and ERC-6492 (deployless universal validator) signatures. Run by
// tests/siwx/test_erc6492.py with VIEM_DIR naming an installed viem package directory (ESM
// ignores NODE_PATH, so it is required from there).
// stdin: {"rpc", "cases": [{"address", "message", "signature"}]}; stdout: [true | false | "error: ..."].
import { createRequire } from 'node:module';

const { createPublicClient, http } = createRequire(`${process.env.VIEM_DIR}/package.json`)('./_cjs/index.js');

let input = '';
for await (const chunk of process.stdin) input += chunk;
const { rpc, cases } = JSON.parse(input);
const client = createPublicClient({ transport: http(rpc) });
const results = [];
for (const c of cases) {
  try {
    results.push(await client.verifyMessage({ address: c.address, message: c.message, signature: c.signature }));
  } catch (error) {
    results.push(`error: ${error.shortMessage ?? error.message}`);
  }
}
process.stdout.write(JSON.stringify(results));
