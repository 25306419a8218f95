/**
 * True only when `A` and `B` are the same type: a generated `unknown` or `any` where the contract
 * has a precise type makes a usage file fail to compile.
 */
export type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
