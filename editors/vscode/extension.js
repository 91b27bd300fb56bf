// Starts `graphlint server` for Python files: diagnostics, quick fixes, source.fixAll.graphlint, hover.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

async function activate(context) {
  const settings = vscode.workspace.getConfiguration("graphlint");
  const [command, ...args] = settings.get("command");
  client = new LanguageClient(
    "graphlint",
    "graphlint",
    { command, args },
    {
      documentSelector: [{ scheme: "file", language: "python" }],
      initializationOptions: { debounce: settings.get("debounce") },
    },
  );
  context.subscriptions.push(client);
  await client.start();
}

async function deactivate() {
  if (client) await client.stop();
}

module.exports = { activate, deactivate };
