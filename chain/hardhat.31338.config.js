// Dev chain 31338 (default port 8546): `npx hardhat node --hostname 127.0.0.1 --port 8546 --config hardhat.31338.config.js`
"use strict";
module.exports = require("./hardhat.common.js").devChainConfig(31338);
