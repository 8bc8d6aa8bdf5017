// SPDX-License-Identifier: MIT
// A fixed-supply ERC-20 with 6 decimals (like USDC) for the local dev chains.
// Same constructor as OpenZeppelin 4's ERC20PresetFixedSupply so both deploy the same way.
pragma solidity ^0.8.20;

import "@openzeppelin/contracts/token/ERC20/ERC20.sol";

contract TestUSD is ERC20 {
    constructor(string memory name_, string memory symbol_, uint256 initialSupply, address owner)
        ERC20(name_, symbol_)
    {
        _mint(owner, initialSupply);
    }

    function decimals() public pure override returns (uint8) {
        return 6;
    }
}
