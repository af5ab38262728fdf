// The Socket.IO client, from the npm package that the server's /vendor route serves (webapp/views/pages.py VENDOR_FILES).
export { io } from "/vendor/socket.io-client/dist/socket.io.esm.min.js";
