-- graphlint server for Python buffers (Neovim 0.7+): put this in init.lua.
local graphlint = {} -- root folder -> client id (Neovim 0.7)
vim.api.nvim_create_autocmd("FileType", {
  pattern = "python",
  callback = function(args)
    local folder = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(args.buf), ":p:h")
    local pyproject = vim.fn.findfile("pyproject.toml", folder .. ";") -- its [tool.graphlint] applies
    local root = pyproject ~= "" and vim.fn.fnamemodify(pyproject, ":p:h") or folder
    local config = { name = "graphlint", cmd = vim.g.graphlint_cmd or { "graphlint", "server" }, root_dir = root }
    if vim.lsp.start then
      vim.lsp.start(config) -- Neovim 0.8+
    else
      graphlint[root] = graphlint[root] or vim.lsp.start_client(config)
      vim.lsp.buf_attach_client(args.buf, graphlint[root])
    end
  end,
})
