// SPDX-License-Identifier: MIT
// A minimal smart-contract account for the local dev chains: one owner EOA, EIP-1271
// signature validation, and call forwarding by the owner. Test asset, not for real funds.
pragma solidity ^0.8.20;

import "@openzeppelin/contracts/interfaces/IERC1271.sol";
import "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

contract DevContractWallet is IERC1271 {
    bytes4 internal constant MAGIC_VALUE = 0x1626ba7e;
    bytes4 internal constant INVALID_VALUE = 0xffffffff;

    address public immutable owner;

    event Executed(address indexed to, uint256 value, bytes data);

    error NotOwner();
    error CallFailed(bytes reason);

    constructor(address owner_) {
        owner = owner_;
    }

    receive() external payable {}

    /// EIP-1271: valid when `signature` is the owner's 65-byte ECDSA signature of `hash`.
    /// OpenZeppelin's tryRecover rejects high-s (EIP-2) values and bad lengths.
    function isValidSignature(bytes32 hash, bytes memory signature) external view override returns (bytes4) {
        (address signer, ECDSA.RecoverError err) = ECDSA.tryRecover(hash, signature);
        if (err == ECDSA.RecoverError.NoError && signer == owner) {
            return MAGIC_VALUE;
        }
        return INVALID_VALUE;
    }

    /// Forwards a call (with value) from the owner, e.g. an ERC-20 transfer out of this wallet.
    function execute(address to, uint256 value, bytes calldata data) external payable returns (bytes memory) {
        if (msg.sender != owner) revert NotOwner();
        (bool ok, bytes memory result) = to.call{value: value}(data);
        if (!ok) revert CallFailed(result);
        emit Executed(to, value, data);
        return result;
    }
}
