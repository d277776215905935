/**
 * AWS list prices, US East (N. Virginia), on-demand, first volume tier, no free tier, in US
 * dollars: what `cloudfn render --estimate` multiplies by. Other regions and volume tiers differ;
 * docs/guide/cloud.md, Cost estimate names the sources and how to update this table.
 */
export const PRICE_LIST = {
  /** The date of these figures: AWS's published prices as known then, not re-read from AWS's pages. */
  recorded: '2026-11-23',
  region: 'us-east-1',
  lambda: {
    /** x86_64, the render function's architecture (aws.amazon.com/lambda/pricing). */
    perGbSecond: 0.0000166667,
    perRequest: 0.2 / 1e6,
    /** Ephemeral storage above the free 512 MB, per GB-second (the function has 10 GB of /tmp). */
    perStorageGbSecond: 0.0000000309,
  },
  stepFunctions: {
    /** Standard workflows (aws.amazon.com/step-functions/pricing). */
    perStateTransition: 0.025 / 1000,
  },
  s3: {
    /** S3 Standard (aws.amazon.com/s3/pricing): PUT, COPY, POST and LIST requests. */
    perPutOrList: 0.005 / 1000,
    /** GET, HEAD and every other request but DELETE, which is free. */
    perGet: 0.0004 / 1000,
  },
} as const;
