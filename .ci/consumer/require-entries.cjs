// Every CommonJS entry of the package, as `require()` gives it to a user: each has the
// same named exports as its ESM twin, and none needs `.default` to reach them.
// Run by check-package from a folder where `answer-once` is the unpacked tarball.
const { exports: entries } = require('answer-once/package.json');

/** Entries a CommonJS program cannot load, and why. */
const ESM_ONLY = new Map([['answer-once/testing', 'its peer vitest throws when require()d']]);

(async () => {
  const failures = [];
  for (const subpath of Object.keys(entries).filter((path) => path !== './package.json')) {
    const specifier = `answer-once${subpath.slice(1)}`;
    if (ESM_ONLY.has(specifier)) continue;
    const required = require(specifier);
    const imported = await import(specifier);
    const names = Object.keys(imported).sort();
    const missing = names.filter((name) => required[name] === undefined);
    if (missing.length > 0) failures.push(`${specifier}: require() lacks ${missing.join(', ')}`);
    if ('default' in required) failures.push(`${specifier}: require() has a default export`);
    if (names.length === 0) failures.push(`${specifier}: exports nothing`);
  }
  if (failures.length > 0) {
    console.error(`CommonJS entries with the wrong shape:\n${failures.join('\n')}`);
    process.exit(1);
  }
  const skipped = [...ESM_ONLY].map(([specifier, why]) => `${specifier}: ${why}`).join('; ');
  console.log(`Every CommonJS entry has its named exports (left out: ${skipped}).`);
})();
