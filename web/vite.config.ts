import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The dashboard is served by the Cairn server at `/`; in development Vite serves it and forwards the
// JSON API to a running server (CAIRN_URL, default http://127.0.0.1:8080).
const target = process.env.CAIRN_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    sourcemap: false,
    // Files, not data: URIs, so a strict Content-Security-Policy (img-src 'self') allows them.
    assetsInlineLimit: 0,
  },
  server: {
    proxy: {
      '/dashboard/api': {
        target,
        changeOrigin: true,
        // State-changing requests must carry the server's own Origin (CSRF check); the browser sends
        // the Vite origin, so present the target's instead.
        configure: (proxy) => {
          proxy.on('proxyReq', (proxyReq) => {
            if (proxyReq.getHeader('origin')) proxyReq.setHeader('origin', new URL(target).origin);
          });
        },
      },
    },
  },
});
