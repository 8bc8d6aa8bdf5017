// Shared Hardhat 2 settings for the local dev chains. Each chain has its own tiny config file
// (hardhat.<chainId>.config.js) that only chooses the chain id, so two nodes on two ports give
// two chains. Dev accounts come from Hardhat's public test mnemonic (account #0 is
// 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266).
"use strict";

function devChainConfig(chainId) {
  return {
    // `hardhat node` never compiles; contracts are compiled by compile.mjs with solc-js.
    paths: { sources: "./contracts", cache: "./cache", artifacts: "./artifacts" },
    networks: {
      hardhat: {
        chainId,
        mining: { auto: true, interval: 0 },
        accounts: { count: 20, accountsBalance: "10000000000000000000000" },
      },
    },
  };
}

module.exports = { devChainConfig };
