export * from 'print-preflight/service';
export * from 'print-preflight/fleet';
