"""Swap tests: the local Uniswap V2 provider against the Hardhat dev chains (`devchain`)."""
