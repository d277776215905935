import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** @type {import('next').NextConfig} */
const nextConfig = {
  // vidkit is loaded by Node at run time, not bundled: it reads compositions from disk.
  serverExternalPackages: ['vidkit'],
  // The compositions are read by the render route from public/ at run time.
  outputFileTracingIncludes: { '/api/render': ['./public/compositions/**/*'] },
  // In this repository vidkit is linked from ../..; tracing must be allowed to follow it.
  outputFileTracingRoot: path.join(here, '..', '..'),
};

export default nextConfig;
