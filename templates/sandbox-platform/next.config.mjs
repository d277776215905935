/** @type {import('next').NextConfig} */
const nextConfig = {
  // vidkit is loaded by Node at run time, not bundled: it reads compositions from disk.
  serverExternalPackages: ['vidkit'],
  // The compositions are read by the render route from public/ at run time.
  outputFileTracingIncludes: { '/api/render': ['./public/compositions/**/*'] },
};

export default nextConfig;
