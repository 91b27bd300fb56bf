;;; graphlint-eglot.el --- graphlint's language server in Emacs, with eglot  -*- lexical-binding: t -*-
;; eglot is built into Emacs 29+; on Emacs 28 install it (Debian: `apt install elpa-eglot`, or M-x package-install).
;; Put this in your init file (or `load' this file): Python buffers then start `graphlint server' with eglot.
(with-eval-after-load 'eglot
  (add-to-list 'eglot-server-programs
               `((python-mode python-ts-mode)
                 . ,(or (bound-and-true-p graphlint-server-command) '("graphlint" "server")))))
(add-hook 'python-mode-hook #'eglot-ensure)
(add-hook 'python-ts-mode-hook #'eglot-ensure)
