alive(c:int) net(c:int) auth(c:int,t:int) upd_start(c:int) upd_connect(c:int) upd_success(c:int) upd_skip(c:int) ssh_login(c:int,s:int) ssh_logout(c:int,s:int)
