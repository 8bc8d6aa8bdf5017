// Run by Node (SpruceID's `siwe` for JavaScript, with ethers; not this project's code): for each
// case on stdin, parse the text, rebuild it, verify the signature. Same contract as
// siwe_check.py: stdin a JSON list of {text, signature, domain, nonce, time}; stdout a JSON list
// of {parsed, rebuilt, verified, error, fields}.
import { SiweMessage } from "siwe";

async function check(c) {
  const result = { parsed: false, rebuilt: null, verified: false, error: null };
  let message;
  try {
    message = new SiweMessage(c.text);
  } catch (error) {
    result.error = `parse: ${error?.message ?? error}`;
    return result;
  }
  result.parsed = true;
  result.rebuilt = message.prepareMessage();
  result.fields = {
    domain: message.domain, address: message.address, statement: message.statement ?? null,
    uri: message.uri, version: message.version, chainId: message.chainId, nonce: message.nonce,
    issuedAt: message.issuedAt, expirationTime: message.expirationTime ?? null,
    notBefore: message.notBefore ?? null, requestId: message.requestId ?? null,
    resources: message.resources ?? null,
  };
  const outcome = await message.verify(
    { signature: c.signature, domain: c.domain, nonce: c.nonce, time: c.time },
    { suppressExceptions: true },
  );
  if (outcome.success) result.verified = true;
  else result.error = `verify: ${outcome.error?.type ?? outcome.error}`;
  return result;
}

let input = "";
for await (const chunk of process.stdin) input += chunk;
const results = [];
for (const c of JSON.parse(input)) results.push(await check(c));
process.stdout.write(JSON.stringify(results));
