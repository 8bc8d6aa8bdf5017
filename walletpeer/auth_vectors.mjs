// Writes one-click sign-in vectors computed by the official @walletconnect/utils (the SDK's own
// code) for the Python tests: the ReCap of the proposed methods, the payload a wallet populates,
// the EIP-4361 message formatMessage builds for a CACAO, and the session namespaces the SDK
// derives from CACAOs.
//   node auth_vectors.mjs > ../tests/walletconnect/sdk_auth_vectors.json
import * as utils from "@walletconnect/utils";

const methods = ["eth_sendTransaction", "personal_sign", "eth_signTypedData_v4", "wallet_switchEthereumChain",
  "wallet_addEthereumChain"];
const recap = utils.createEncodedRecap("eip155", "request", methods);
const request = {
  type: "caip122", chains: ["eip155:31337", "eip155:31338", "eip155:1"], statement: "Sign in to continue",
  aud: "http://127.0.0.1:8000", domain: "127.0.0.1:8000", version: "1", nonce: "Sample0Nonce1234",
  iat: "2026-11-23T06:49:10.123Z", exp: "2026-11-24T06:49:10.123Z", resources: ["https://example.com/terms", recap],
};
const populated = utils.populateAuthPayload({ authPayload: request, chains: ["eip155:31337", "eip155:31338"], methods });
const iss = "did:pkh:eip155:31337:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
const bare = { ...request, statement: "", resources: [recap], exp: undefined };
const cacaos = [utils.buildAuthObject(populated, { t: "eip191", s: "0x" }, iss),
  utils.buildAuthObject(populated, { t: "eip191", s: "0x" }, iss.replace("31337", "31338"))];
const out = {
  methods,
  recap,
  request,
  populated,
  message: utils.formatMessage(populated, iss),
  unpopulated_message: utils.formatMessage(bare, iss),
  bare,
  cacaos,
  namespaces: utils.buildNamespacesFromAuth(
    [...new Set(cacaos.flatMap((c) => utils.getMethodsFromRecap(utils.getRecapFromResources(c.p.resources))))],
    [...new Set(cacaos.flatMap((c) => [utils.getNamespacedDidChainId(c.p.iss),
      ...utils.getChainsFromRecap(utils.getRecapFromResources(c.p.resources))]
      .map((chain) => `${chain}:${utils.getDidAddress(c.p.iss)}`)))]),
};
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
