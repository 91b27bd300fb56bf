-- graphlint's language server for Python buffers: diagnostics, quick fixes, fix-all, rule docs on hover.
-- Neovim 0.7 or later. Put this in your init.lua (or `dofile` this file from it).
local cmd = vim.g.graphlint_cmd or { "graphlint", "server" }

local function root_dir(buf)
  -- the folder of the nearest pyproject.toml (its [tool.graphlint] applies), else the current folder
  local folder = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ":p:h")
  local found = vim.fn.findfile("pyproject.toml", folder .. ";")
  return found ~= "" and vim.fn.fnamemodify(found, ":p:h") or vim.fn.getcwd()
end

local clients = {} -- Neovim 0.7: one client per root folder
vim.api.nvim_create_autocmd("FileType", {
  pattern = "python",
  callback = function(args)
    local config = { name = "graphlint", cmd = cmd, root_dir = root_dir(args.buf) }
    if vim.lsp.start then -- Neovim 0.8+: reuses the running client of that root
      vim.lsp.start(config)
    else
      clients[config.root_dir] = clients[config.root_dir] or vim.lsp.start_client(config)
      vim.lsp.buf_attach_client(args.buf, clients[config.root_dir])
    end
  end,
})
