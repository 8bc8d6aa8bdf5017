// SPDX-License-Identifier: GPL-3.0
pragma solidity ^0.8.23;

// The embedded wallet's smart account (issue 32): eth-infinitism's v0.7 SimpleAccount, which has
// no ERC-1271, plus `isValidSignature` (valid when the owner signed the raw hash), and its factory
// (SimpleAccountFactory's createAccount/getAddress, deploying this account behind an ERC1967Proxy).
// Compiled by compile.mjs against the OpenZeppelin 5 that @account-abstraction/contracts ships.

import "@account-abstraction/contracts/samples/SimpleAccount.sol";
import "@openzeppelin/contracts/interfaces/IERC1271.sol";
import "@openzeppelin/contracts/utils/Create2.sol";
import "@openzeppelin/contracts/proxy/ERC1967/ERC1967Proxy.sol";

contract ModalSmartAccount is SimpleAccount, IERC1271 {
    constructor(IEntryPoint anEntryPoint) SimpleAccount(anEntryPoint) {}

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address signer, ECDSA.RecoverError error, ) = ECDSA.tryRecover(hash, signature);
        if (error == ECDSA.RecoverError.NoError && signer == owner) {
            return IERC1271.isValidSignature.selector;
        }
        return 0xffffffff;
    }
}

contract ModalSmartAccountFactory {
    ModalSmartAccount public immutable accountImplementation;

    constructor(IEntryPoint anEntryPoint) {
        accountImplementation = new ModalSmartAccount(anEntryPoint);
    }

    function createAccount(address owner, uint256 salt) public returns (ModalSmartAccount ret) {
        address addr = getAddress(owner, salt);
        if (addr.code.length > 0) {
            return ModalSmartAccount(payable(addr));
        }
        ret = ModalSmartAccount(payable(new ERC1967Proxy{salt: bytes32(salt)}(
            address(accountImplementation),
            abi.encodeCall(SimpleAccount.initialize, (owner))
        )));
    }

    function getAddress(address owner, uint256 salt) public view returns (address) {
        return Create2.computeAddress(bytes32(salt), keccak256(abi.encodePacked(
            type(ERC1967Proxy).creationCode,
            abi.encode(address(accountImplementation), abi.encodeCall(SimpleAccount.initialize, (owner)))
        )));
    }
}
