/**
 * The curated list of well-known tokens clear signing reads amounts with, keyed by chain and contract address (or SPL
 * mint). It is deliberately small: a token not on it is never given guessed decimals; operators declare the others.
 *
 * Each entry is the token's canonical contract (or mint) as its issuer publishes it, compared character for character,
 * checksummed spelling included. The USDC entries, Sepolia's test token included, are also held by a unit test to
 * viem's own token definitions (`viem/tokens`); WETH on Optimism and Base is the OP Stack predeploy at 0x4200…0006.
 *
 * Changing an entry changes what operators read on a signing card: say why in the commit.
 */
import type { KnownToken } from './types';

/** EIP-155 chain ids of the networks the list covers. */
const ETHEREUM = 1;
const OPTIMISM = 10;
const POLYGON = 137;
const BASE = 8453;
const ARBITRUM_ONE = 42161;
const SEPOLIA = 11155111;

const usdc = (chainId: number, address: string): KnownToken => ({
  family: 'ethereum',
  chainId,
  address,
  symbol: 'USDC',
  decimals: 6,
  name: 'USD Coin',
});
const weth = (chainId: number, address: string): KnownToken => ({
  family: 'ethereum',
  chainId,
  address,
  symbol: 'WETH',
  decimals: 18,
  name: 'Wrapped Ether',
});

export const KNOWN_TOKENS: readonly KnownToken[] = [
  usdc(ETHEREUM, '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'),
  { family: 'ethereum', chainId: ETHEREUM, address: '0xdAC17F958D2ee523a2206206994597C13D831ec7', symbol: 'USDT', decimals: 6, name: 'Tether USD' },
  {
    family: 'ethereum',
    chainId: ETHEREUM,
    address: '0x6B175474E89094C44Da98b954EedeAC495271d0F',
    symbol: 'DAI',
    decimals: 18,
    name: 'Dai Stablecoin',
  },
  weth(ETHEREUM, '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'),
  { family: 'ethereum', chainId: ETHEREUM, address: '0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599', symbol: 'WBTC', decimals: 8, name: 'Wrapped BTC' },
  {
    family: 'ethereum',
    chainId: ETHEREUM,
    address: '0x514910771AF9Ca656af840dff83E8264EcF986CA',
    symbol: 'LINK',
    decimals: 18,
    name: 'ChainLink Token',
  },
  { family: 'ethereum', chainId: ETHEREUM, address: '0x1f9840a85d5aF5bf1D1762F925BDADdC4201F984', symbol: 'UNI', decimals: 18, name: 'Uniswap' },
  usdc(BASE, '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'),
  weth(BASE, '0x4200000000000000000000000000000000000006'),
  usdc(ARBITRUM_ONE, '0xaf88d065e77c8cC2239327C5EDb3A432268e5831'),
  weth(ARBITRUM_ONE, '0x82aF49447D8a07e3bd95BD0d56f35241523fBab1'),
  usdc(OPTIMISM, '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85'),
  weth(OPTIMISM, '0x4200000000000000000000000000000000000006'),
  // Native USDC, not the bridged USDC.e.
  usdc(POLYGON, '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359'),
  weth(POLYGON, '0x7ceB23fD6bC0adD59E62ac25578270cFf1b9f619'),
  usdc(SEPOLIA, '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238'),
  { family: 'solana', address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', symbol: 'USDC', decimals: 6, name: 'USD Coin' },
  { family: 'solana', address: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', symbol: 'USDT', decimals: 6, name: 'Tether USD' },
];
