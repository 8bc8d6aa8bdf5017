/**
 * The little of viem the wagmi entry names, for type-checking this repository
 * without installing them. The published declarations import the host app's real ones.
 */
declare module 'viem' {
  export type Address = `0x${string}`;
  export function getAddress(address: string): Address;
  export function numberToHex(value: number): `0x${string}`;
  export class UserRejectedRequestError extends Error {
    constructor(cause: Error);
    code: number;
  }
  export class SwitchChainError extends Error {
    constructor(cause: Error);
    code: number;
  }
}
