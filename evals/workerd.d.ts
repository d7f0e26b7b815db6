// Minimal types for the `workerd` package's entry (it ships none): the binary's path and version.
declare module 'workerd' {
  const binaryPath: string;
  export default binaryPath;
  export const version: string;
  export const compatibilityDate: string;
}
