import * as dns from 'node:dns';
import * as net from 'node:net';
import ipaddr from 'ipaddr.js';

/** What ipaddr.js calls the ranges a page is most likely to aim at, in words. */
const RANGE_WORDS: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  uniqueLocal: 'a private (unique local) address',
  linkLocal: 'a link-local address',
  carrierGradeNat: 'a carrier-grade NAT address',
  unspecified: 'an unspecified address',
};

/**
 * Undefined for a public unicast address; otherwise what the address is, in words. Every range but
 * global unicast counts (loopback, RFC 1918, CGNAT, link-local, ULA, multicast, reserved); an
 * IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
 */
export function nonPublicAddress(address: string): string | undefined {
  const range = ipaddr.process(address).range();
  if (range === 'unicast') return undefined;
  return RANGE_WORDS[range] ?? `a reserved address (${range})`;
}

/** Undefined for a public unicast address; otherwise what the address is and what allows a page to reach it. */
export function privateAddressRefusal(address: string): string | undefined {
  const words = nonPublicAddress(address);
  return words && `${words}, refused (a local render allows private networks with --allow-private-network)`;
}

/**
 * The name to ask the system resolver for `host`: `localhost` for every name that is loopback by
 * definition (`localhost` and `*.localhost`, with or without a final dot, RFC 6761), which
 * Chromium answers with loopback itself and the system's hosts file may not list; `host` itself
 * otherwise. So `localhost.` is judged as the loopback address it reaches, not sent to DNS.
 */
function resolverName(host: string): string {
  return /(^|\.)localhost\.?$/i.test(host) ? 'localhost' : host;
}

/** dns.lookup, failing when any address of the name is refused: the socket connects only to an address checked here. */
export function checkedLookup(refuse: (address: string) => string | undefined): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(resolverName(hostname), { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      for (const { address } of addresses) {
        const refused = refuse(address);
        if (refused) return callback(new Error(`${hostname} resolves to ${address}, ${refused}`), []);
      }
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

export interface EgressPolicyOptions {
  /** Loopback, link-local and private addresses may be reached (`--allow-private-network`); refused by default. */
  allowPrivateNetwork?: boolean;
  /** A page may register a service worker (`--allow-service-workers`); refused by default. */
  allowServiceWorkers?: boolean;
  /** The project server's base URL: the page's own origin, reachable whatever the rest of the policy says. */
  projectServer?: string;
}

/** An address a connection may go to, checked by {@link EgressPolicy.resolve}. */
export interface CheckedAddress {
  address: string;
  family: number;
}

/**
 * What a page may reach on the network, decided in one place (docs/explanation/security-model.md): the
 * browser's egress gate (egress-gate.ts) asks it about every connection the browser opens, and
 * vidkit's own downloads for the page (remote-fetch.ts) about every address they connect to.
 * The project server is always reachable; other loopback, private and link-local addresses only
 * with `allowPrivateNetwork`; public unicast addresses always.
 */
export class EgressPolicy {
  readonly allowPrivateNetwork: boolean;
  readonly allowServiceWorkers: boolean;
  private readonly projectHost?: string;
  private readonly projectPort?: number;

  constructor(opts: EgressPolicyOptions = {}) {
    this.allowPrivateNetwork = opts.allowPrivateNetwork ?? false;
    this.allowServiceWorkers = opts.allowServiceWorkers ?? false;
    if (opts.projectServer !== undefined) {
      const url = new URL(opts.projectServer);
      this.projectHost = url.hostname.replace(/^\[(.*)\]$/, '$1');
      this.projectPort = Number(url.port || 80);
    }
  }

  /** Why the page may not reach `address` (an IP address) on `port`, or undefined when it may. */
  refuseAddress = (address: string, port?: number): string | undefined => {
    if (port !== undefined && port === this.projectPort && address === this.projectHost) return undefined;
    return this.allowPrivateNetwork ? undefined : privateAddressRefusal(address);
  };

  /**
   * The address a connection to `host`:`port` goes to: a literal address as it is, a name resolved
   * once here, every address it resolves to checked. The caller connects to the address returned,
   * never to the name, so an answer that changes after the check (DNS rebinding) is never used.
   * Throws with the reason when the policy refuses it.
   */
  async resolve(host: string, port: number): Promise<CheckedAddress> {
    const literal = host.replace(/^\[(.*)\]$/, '$1');
    if (net.isIP(literal) !== 0) {
      const refused = this.refuseAddress(literal, port);
      if (refused) throw new EgressRefusal(`${literal} is ${refused}`);
      return { address: literal, family: net.isIP(literal) };
    }
    const addresses = await dns.promises.lookup(resolverName(literal), { all: true, verbatim: true });
    for (const { address } of addresses) {
      const refused = this.refuseAddress(address, port);
      if (refused) throw new EgressRefusal(`${literal} resolves to ${address}, ${refused}`);
    }
    if (addresses.length === 0) throw new Error(`${literal} has no address`);
    return addresses[0];
  }
}

/** The policy refused a connection: the page asked for something it may not reach. */
export class EgressRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EgressRefusal';
  }
}
