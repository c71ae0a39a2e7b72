// The service and fleet API of print-preflight, from the package that installs their server packages.
export * from 'print-preflight/service';
export * from 'print-preflight/fleet';
