// Dev chain 31337 (default port 8545): `npx hardhat node --hostname 127.0.0.1 --port 8545 --config hardhat.31337.config.js`
"use strict";
module.exports = require("./hardhat.common.js").devChainConfig(31337);
