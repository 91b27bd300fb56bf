-- Headless Neovim as a user: the README's set-up (editors/nvim/graphlint.lua), open a model file, wait for
-- graphlint's diagnostics, choose the safe quick fix from vim.lsp.buf.code_action(), save. Then the same for a
-- finding graphlint cannot fix (its reason is on hover). Results go to $GRAPHLINT_RESULT, one line each.
local results = {}
local function note(line) table.insert(results, line) end
local function finish(code)
  vim.fn.writefile(results, os.getenv("GRAPHLINT_RESULT"))
  vim.cmd((code == 0 and "qall!" or "cquit! " .. code))
end

local ok, err = pcall(function()
  dofile(os.getenv("GRAPHLINT_NVIM_CONFIG"))
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("GRAPHLINT_MODEL")))
  local buf = vim.api.nvim_get_current_buf()
  note("filetype " .. vim.bo[buf].filetype)
  if not vim.wait(60000, function() return #vim.diagnostic.get(buf) > 0 end, 50) then
    note("no diagnostics"); return finish(1)
  end
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    note(string.format("diagnostic %d:%d %s %s severity=%d %s", d.lnum + 1, d.col + 1, d.source or "", code or "",
                       d.severity, d.message))
  end
  local first = vim.diagnostic.get(buf, { lnum = nil })[1]
  local shown = {}
  vim.notify = function(message) table.insert(shown, message) end
  local chosen
  local function choose(pattern)
    chosen = nil
    vim.ui.select = function(items, opts, on_choice)
      local pick, at
      for index, item in ipairs(items) do
        local title = opts.format_item(item)
        note("offered " .. title)
        if pick == nil and title:find(pattern, 1, true) then pick, at = item, index; chosen = title end
      end
      on_choice(pick, at)
    end
  end

  -- the quick fix for `del y`
  vim.api.nvim_win_set_cursor(0, { first.lnum + 1, first.col })
  choose("(safe fix)")
  vim.lsp.buf.code_action()
  local function text() return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n") end
  if not vim.wait(30000, function() return chosen ~= nil and not text():find("del y", 1, true) end, 50) then
    note("quick fix not applied"); return finish(1)
  end
  note("applied " .. chosen)
  if not vim.wait(30000, function() return #vim.diagnostic.get(buf) == 0 end, 50) then
    note("diagnostics left after the fix"); return finish(1)
  end
  note("diagnostics after the fix 0")
  vim.cmd("write")

  -- a loop graphlint cannot rewrite: choosing the action shows why
  local lines = { "        for i in range(2000):", "            x = ops.concat((x, x))" }
  local row = first.lnum
  vim.api.nvim_buf_set_lines(buf, row, row, false, lines)
  if not vim.wait(30000, function() return #vim.diagnostic.get(buf) > 0 end, 50) then
    note("no diagnostic for the loop"); return finish(1)
  end
  vim.api.nvim_win_set_cursor(0, { row + 1, 8 })
  -- no code action edits nothing: the reason graphlint does not rewrite the loop is on hover
  choose("cannot fix")
  vim.lsp.buf.code_action()
  vim.wait(2000, function() return chosen ~= nil end, 50)
  if chosen ~= nil then note("offered a refused fix " .. chosen); return finish(1) end
  local params = vim.lsp.util.make_position_params(0, "utf-16")
  local replies = vim.lsp.buf_request_sync(buf, "textDocument/hover", params, 30000) or {}
  for _, reply in pairs(replies) do
    local value = reply.result and reply.result.contents and reply.result.contents.value or ""
    for line in value:gmatch("[^\n]+") do
      if line:find("No fix here", 1, true) then note("shown " .. line) end
    end
  end
  return finish(0)
end)
if not ok then note("error " .. tostring(err)); finish(1) end
