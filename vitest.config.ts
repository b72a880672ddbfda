import { defineConfig } from "vitest/config";

// Every test runs in UTC; everything that touches dates, decimals or the OCF output runs again in
// Pacific/Kiritimati (UTC+14, where "today" is already tomorrow), so a time-zone shift cannot hide.
// Suites that need what a lone clone lacks (the third-party reference folder, Chromium) are gated:
// see test/helpers/gates.ts; the reporter below prints one line for each kind that was skipped.
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    globalSetup: ["test/setup/global-setup.ts"],
    reporters: ["default", "./test/setup/skipped-suites-reporter.ts"],
    projects: [
      { extends: true, test: { name: "utc", include: ["test/**/*.test.ts"], env: { TZ: "UTC" } } },
      {
        extends: true,
        test: {
          name: "kiritimati",
          include: ["test/unit/**/*.test.ts", "test/property/**/*.test.ts", "test/golden/**/*.test.ts"],
          env: { TZ: "Pacific/Kiritimati" },
        },
      },
    ],
  },
});
