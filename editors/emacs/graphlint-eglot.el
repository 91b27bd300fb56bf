;; graphlint server for Python buffers with eglot (built into Emacs 29+; Emacs 28: `apt install elpa-eglot`).
(with-eval-after-load 'eglot
  (add-to-list 'eglot-server-programs
               `((python-mode python-ts-mode)
                 . ,(or (bound-and-true-p graphlint-server-command) '("graphlint" "server")))))
(add-hook 'python-mode-hook #'eglot-ensure)
(add-hook 'python-ts-mode-hook #'eglot-ensure)
